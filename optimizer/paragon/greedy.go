package paragon

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Defaults of GreedyOptions.
const (
	// DefaultRelaxStep is the QoS relaxation of one backtracking step, in
	// score units: 5% of the microbenchmark scale, §2.3's QoS margin.
	DefaultRelaxStep = 0.05
	// DefaultMaxRelax bounds how far backtracking relaxes an earlier SoI
	// (20%, the edge of Fig. 10's worst degradation band); beyond it the
	// failing SoI itself is relaxed to the least violation on offer.
	DefaultMaxRelax = 0.2
	// DefaultConfigBucket quantizes predicted performance when preferring
	// the best configuration: scores within 2% count as equally good, so
	// that interference (‖D1 + D2‖₁) decides between them (STYLE habit 4:
	// integer preferences compared in order).
	DefaultConfigBucket = 0.02
	// DefaultTimeoutPasses sets the timeout of §3.2 as a budget of
	// (server, SoI) checks: this many full passes over all servers and
	// levels. A check count, not wall time, so runs are reproducible.
	DefaultTimeoutPasses = 4
	// l1Quantum quantizes ‖D1 + D2‖₁ so that float noise does not break
	// ties that the seeded tie-break should.
	l1Quantum = 1e-9
)

// Request is an application to place: an ID (which seeds its tie-breaks),
// the cores it asks for, and its classification (predicted, not true).
type Request struct {
	ID    int
	Cores int
	Class Class
}

// GreedyOptions configure SelectGreedy. A zero field takes its default.
type GreedyOptions struct {
	// IgnoreConfig drops the preference for the best configuration: the
	// heterogeneity-oblivious scheduler (NH) of §4.
	IgnoreConfig bool
	// Headroom uses Server.Headroom for t_server in D1 (D1Headroom)
	// instead of §3.2's server tolerance, the minimum t over its residents
	// (D1MinTolerated, the default).
	Headroom     bool
	RelaxStep    float64
	MaxRelax     float64
	ConfigBucket float64
	// Timeout is the check budget; zero means DefaultTimeoutPasses passes.
	Timeout int
	// Seed, with the request ID, seeds the tie-break among equal servers.
	Seed uint64
}

func (o GreedyOptions) withDefaults(servers, levels int) GreedyOptions {
	if o.RelaxStep <= 0 {
		o.RelaxStep = DefaultRelaxStep
	}
	if o.MaxRelax <= 0 {
		o.MaxRelax = DefaultMaxRelax
	}
	if o.ConfigBucket <= 0 {
		o.ConfigBucket = DefaultConfigBucket
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeoutPasses * max(1, servers*levels)
	}
	return o
}

// Decision is the explanation of one placement (STYLE habit 5).
type Decision struct {
	// Server is the chosen server's index, -1 when the cluster is empty.
	Server int `json:"server"`
	// Candidates: servers with room for the request's cores, or all
	// servers when none had room (Overcommitted).
	Candidates    int  `json:"candidates"`
	Overcommitted bool `json:"overcommitted"`
	// Survivors: candidates left after the last SoI level.
	Survivors int `json:"survivors"`
	// Backtracks counts levels reverted; RelaxedLevels the levels whose
	// QoS bound ended relaxed; SelfRelaxed the times a failing level had to
	// relax itself (backtracking within MaxRelax did not help).
	Backtracks    int `json:"backtracks"`
	RelaxedLevels int `json:"relaxed_levels"`
	SelfRelaxed   int `json:"self_relaxed"`
	// NegativeSoIs counts the SoIs with D1 < 0 or D2 < 0 at the chosen
	// server (§3.2 reports 8% of applications with one, 3% with more).
	NegativeSoIs int `json:"negative_sois"`
	// RejectedD1 and RejectedD2 count, per SoI, the servers its level
	// filtered out (at the final relaxation).
	RejectedD1 []int `json:"rejected_d1,omitempty"`
	RejectedD2 []int `json:"rejected_d2,omitempty"`
	// TimedOut: the check budget ran out and the best server among those
	// still in the running was taken.
	TimedOut bool `json:"timed_out"`
	Checks   int  `json:"checks"`
	// Quality is the chosen server's normalized colocation quality (the
	// sampling scheme only).
	Quality float64 `json:"quality,omitempty"`
}

// level is one filtering step: D1 or D2 at one SoI.
type level struct {
	d2  bool
	soi int
}

// levels orders the filtering steps of §3.2: D1 for SoIs by decreasing
// caused score of the new application (the resource "most difficult to
// satisfy" first), then D2 by increasing tolerated score (most sensitive
// first); ties by SoI index.
func levels(req *Request) []level {
	n := len(req.Class.Caused)
	d1 := make([]int, n)
	d2 := make([]int, n)
	for i := range d1 {
		d1[i], d2[i] = i, i
	}
	sort.SliceStable(d1, func(a, b int) bool { return req.Class.Caused[d1[a]] > req.Class.Caused[d1[b]] })
	sort.SliceStable(d2, func(a, b int) bool { return req.Class.Tolerated[d2[a]] < req.Class.Tolerated[d2[b]] })
	out := make([]level, 0, 2*n)
	for _, s := range d1 {
		out = append(out, level{false, s})
	}
	for _, s := range d2 {
		out = append(out, level{true, s})
	}
	return out
}

// D1 is §3.2's D1 = t_server − c_new at one SoI: how much more
// interference the server's residents tolerate than the new application
// causes. t_server is Server.Tolerated, the minimum over the residents
// (§3.2), or with headroom set Server.Headroom (D1Headroom).
func D1(s *Server, req *Request, soi int, headroom bool) float64 {
	t := s.Tolerated[soi]
	if headroom {
		t = s.Headroom[soi]
	}
	return t - req.Class.Caused[soi]
}

// D2 is §3.2's D2 = t_new − c_server at one SoI: how much more
// interference the new application tolerates than the residents cause.
func D2(s *Server, req *Request, soi int) float64 {
	return req.Class.Tolerated[soi] - s.Caused[soi]
}

// candidates returns the servers with room for the request's cores, or
// all of them (and true) when none has room.
func candidates(c *Cluster, req *Request) ([]int, bool) {
	out := make([]int, 0, len(c.Servers))
	for i := range c.Servers {
		if c.Servers[i].FreeCores() >= req.Cores {
			out = append(out, i)
		}
	}
	if len(out) > 0 {
		return out, false
	}
	for i := range c.Servers {
		out = append(out, i)
	}
	return out, true
}

// SelectGreedy is §3.2's greedy server selection for one classified
// application:
//
//  1. Candidates are the servers with room for its cores (all servers,
//     oversubscribing, when none has room: there is no admission control).
//  2. Filter level by level (see levels): keep the servers with
//     D1 = t_server − c_new ≥ −ρ at each SoI in decreasing c_new, then
//     D2 = t_new − c_server ≥ −ρ in increasing t_new, where ρ, the
//     level's relaxation, starts at 0. Filtering the D2 levels within the
//     D1 survivors is §3.2's intersection of the two sets.
//  3. Backtracking: when level k empties the set, go back d = 1, 2, …
//     levels and relax levels k−d … k−1 by the least multiple of RelaxStep
//     that lets some server through them and through level k, as long as
//     that is ≤ MaxRelax; if no depth does, relax level k itself to the
//     least violation among its inputs. Worst case O(servers × levels²).
//  4. Among the survivors prefer the best configuration (predicted score
//     bucketed by ConfigBucket; skipped with IgnoreConfig), then the least
//     ‖D1 + D2‖₁ = Σ_SoI |D1 + D2| (the tightest fit: §3.2's optimum has
//     D1 = D2 = 0), then a seeded random pick.
//
// A check budget (Timeout) stands for §3.2's timeout: when it runs out the
// current candidate set goes to step 4. It returns Server −1 for an empty
// cluster.
func SelectGreedy(c *Cluster, req *Request, o GreedyOptions) Decision {
	lv := levels(req)
	o = o.withDefaults(len(c.Servers), len(lv))
	dec := Decision{Server: -1}
	if len(c.Servers) == 0 {
		return dec
	}
	in := make([][]int, len(lv)+1)
	in[0], dec.Overcommitted = candidates(c, req)
	dec.Candidates = len(in[0])
	rho := make([]float64, len(lv))

	viol := func(s int, l level) float64 {
		dec.Checks++
		var d float64
		if l.d2 {
			d = D2(&c.Servers[s], req, l.soi)
		} else {
			d = D1(&c.Servers[s], req, l.soi, o.Headroom)
		}
		return math.Max(0, -d)
	}
	const eps = 1e-12
	filter := func(k int) []int {
		out := in[k+1][:0]
		for _, s := range in[k] {
			if viol(s, lv[k]) <= rho[k]+eps {
				out = append(out, s)
			}
		}
		return out
	}
	step := func(v float64) float64 { return math.Ceil(v/o.RelaxStep-eps) * o.RelaxStep }

	k := 0
	for k < len(lv) {
		in[k+1] = filter(k)
		if len(in[k+1]) > 0 {
			k++
			continue
		}
		if dec.Checks > o.Timeout {
			dec.TimedOut = true
			break
		}
		resolved := false
		for d := 1; d <= k && !resolved; d++ {
			j := k - d
			best := math.Inf(1)
			for _, s := range in[j] {
				if viol(s, lv[k]) > rho[k]+eps {
					continue
				}
				need := 0.0
				for l := j; l < k && need < best; l++ {
					need = math.Max(need, viol(s, lv[l]))
				}
				best = math.Min(best, need)
			}
			if r := step(best); r <= o.MaxRelax+eps {
				for l := j; l < k; l++ {
					rho[l] = math.Max(rho[l], r)
				}
				for l := j; l < k; l++ {
					in[l+1] = filter(l)
				}
				dec.Backtracks += d
				resolved = true
			}
		}
		if !resolved {
			best := math.Inf(1)
			for _, s := range in[k] {
				best = math.Min(best, viol(s, lv[k]))
			}
			rho[k] = math.Max(rho[k], step(best))
			dec.SelfRelaxed++
		}
	}
	final := in[k] // all levels passed (k = len(lv)), or the timeout's set
	dec.Survivors = len(final)
	for _, r := range rho {
		if r > 0 {
			dec.RelaxedLevels++
		}
	}
	// Rejections per SoI at the final relaxations (levels reached).
	dec.RejectedD1 = make([]int, c.sois)
	dec.RejectedD2 = make([]int, c.sois)
	for l := 0; l < k && l < len(lv); l++ {
		n := len(in[l]) - len(in[l+1])
		if lv[l].d2 {
			dec.RejectedD2[lv[l].soi] += n
		} else {
			dec.RejectedD1[lv[l].soi] += n
		}
	}
	dec.Server = pickBest(c, req, final, o)
	dec.NegativeSoIs = negativeSoIs(&c.Servers[dec.Server], req, o.Headroom)
	return dec
}

// pickBest is step 4 of SelectGreedy.
func pickBest(c *Cluster, req *Request, cands []int, o GreedyOptions) int {
	rng := tieBreaker(o.Seed, req.ID)
	best, ties := -1, 0
	var bestBucket, bestL1 int64
	for _, s := range cands {
		srv := &c.Servers[s]
		var bucket int64
		if !o.IgnoreConfig {
			bucket = int64(math.Floor(req.Class.Perf[srv.Config]/o.ConfigBucket + 1e-9))
		}
		l1 := 0.0
		for soi := range req.Class.Caused {
			l1 += math.Abs(D1(srv, req, soi, o.Headroom) + D2(srv, req, soi))
		}
		q := int64(math.Round(l1 / l1Quantum))
		switch {
		case best < 0 || bucket > bestBucket || (bucket == bestBucket && q < bestL1):
			best, ties, bestBucket, bestL1 = s, 1, bucket, q
		case bucket == bestBucket && q == bestL1:
			ties++
			if rng.IntN(ties) == 0 {
				best = s
			}
		}
	}
	return best
}

// negativeSoIs counts the SoIs where D1 or D2 is negative.
func negativeSoIs(s *Server, req *Request, headroom bool) int {
	n := 0
	for soi := range req.Class.Caused {
		if D1(s, req, soi, headroom) < 0 || D2(s, req, soi) < 0 {
			n++
		}
	}
	return n
}

// tieBreaker returns the generator for one request's random choices,
// seeded by (run seed, request ID) (STYLE habit 6).
func tieBreaker(seed uint64, id int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(id)*0x9e3779b97f4a7c15+1))
}
