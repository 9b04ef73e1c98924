package violation

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The experimental setup of §8.1 and §8.3.
const (
	// DefaultNodes is the simulated cluster size of §8.2–8.3.
	DefaultNodes = 40
	// DefaultHours is the simulated time of one §8.3 experiment.
	DefaultHours = 300
	// DefaultSeeds is the §8.3 repetitions ("repeated 20x").
	DefaultSeeds = 20
	// DefaultThreshold is f_r (§3: "e.g., 95% of the resource capacity").
	DefaultThreshold = 0.95
	// DefaultDensity is the target tenant density OR^cpu of the default
	// run. The synthetic tenants carry as much memory cap per vCore as the
	// §8.1 nodes and 1.39 times the local disk, so at 1.1 memory is
	// oversubscribed 1.1× and disk 1.53×; their peaks average 57% and 35%
	// of the caps, so an average node peaks near 63% of memory and 54% of
	// disk, and violations come from the tails — on the order of a hundred
	// per 300 hours on 40 nodes for the best baselines (a choice: the paper
	// does not list its densities).
	DefaultDensity = 1.1
	// MaxHours bounds the simulated time: ten years, 1,051,200 steps of
	// five minutes per repetition; beyond it the step count is a hang, and
	// near 1e300 it overflows.
	MaxHours = 10 * 365 * 24
	// DefaultInitialQuantile is the percentile of a class's first samples
	// used as \overline{usage}_{db,0} (§8.2 tries the 50th to 99th).
	DefaultInitialQuantile = 0.5
)

// DefaultCapacity is hardware spec 1 of §8.1: 80 vCores, 5.1 GB of memory
// per vCore, 5 TB of local disk (in GB).
var DefaultCapacity = Vec{CPU: 80, Memory: 80 * MemoryPerCore, Disk: 5 * 1024}

// SimConfig is one violation experiment (§3.3, §8.1).
type SimConfig struct {
	// Nodes is H.
	Nodes int `json:"nodes"`
	// Capacity is c_r of every node, in the curves' units.
	Capacity Vec `json:"capacity"`
	// Threshold is f_r.
	Threshold Vec `json:"threshold"`
	// Density is the target tenant density: the cluster over-subscription
	// ratio OR^cpu = (1/H) Σ_i Σ_{db on N_i} MaxUsage_db^cpu / c_cpu of
	// §3.2 with r = CPU cores (§8.1), i.e. Σ Max_cpu of the tenants in the
	// cluster over H·c_cpu. Tenants are admitted, at the start and after
	// departures, until it is reached.
	Density float64 `json:"density"`
	// Hours is the simulated time.
	Hours float64 `json:"hours"`
	// Seeds is the number of repetitions, each with its own tenant
	// sequence (the same for every policy).
	Seeds int `json:"seeds"`
	// Seed is the run seed; repetition s uses SeedOf(Seed, s).
	Seed uint64 `json:"seed"`
	// InitialQuantile is q of Repository.InitialDemand, the estimate of a
	// new tenant's demand.
	InitialQuantile float64 `json:"initial_quantile"`
	// Reference names the policy the others' violations are divided by
	// (Ratio); empty or absent from the run means no ratios.
	Reference string `json:"reference"`
}

// DefaultSimConfig is the §8.3 setup on hardware spec 1 at DefaultDensity.
func DefaultSimConfig() SimConfig {
	return SimConfig{
		Nodes:           DefaultNodes,
		Capacity:        DefaultCapacity,
		Threshold:       Vec{DefaultThreshold, DefaultThreshold, DefaultThreshold},
		Density:         DefaultDensity,
		Hours:           DefaultHours,
		Seeds:           DefaultSeeds,
		Seed:            1,
		InitialQuantile: DefaultInitialQuantile,
		Reference:       NamePrVWorstFit,
	}
}

// SeedOf is the seed of repetition s of a run.
func SeedOf(run uint64, s int) uint64 { return mix64(run + golden*uint64(s+1)) }

// SeedResult is one repetition of one policy.
type SeedResult struct {
	Seed uint64 `json:"seed"`
	// Violations counts (node, step) pairs at which a node's demand reached
	// f_r·c_r and tenants were failed over (§3.3 (iii)).
	Violations int `json:"violations"`
	// ByResource counts the violations by resource at its limit (a node
	// over on several resources counts once per resource).
	ByResource [NumResources]int `json:"by_resource"`
	// Failovers counts tenants moved off violating nodes.
	Failovers int `json:"failovers"`
	// Dropped counts failed-over tenants no node could take (they leave).
	Dropped int `json:"dropped"`
	// Placed counts arrivals placed; Unplaced, arrivals no node could take
	// (admission resumes at the next step).
	Placed   int `json:"placed"`
	Unplaced int `json:"unplaced"`
	// MeanTenants is the average number of tenants in the cluster.
	MeanTenants float64 `json:"mean_tenants"`
	Seconds     float64 `json:"seconds"`
}

// PolicyResult aggregates a policy's repetitions.
type PolicyResult struct {
	Policy string `json:"policy"`
	// Violations and Failovers are means over the repetitions.
	Violations float64 `json:"violations"`
	Failovers  float64 `json:"failovers"`
	// Seconds is the wall-clock time of all repetitions; MsPerPlacement
	// divides it by the placement requests (arrivals and failovers).
	Seconds        float64 `json:"seconds"`
	MsPerPlacement float64 `json:"ms_per_placement"`
	// Ratio is Violations over the reference policy's (§8.2); 1 when both
	// are 0, absent when only the reference's is 0 or there is none.
	Ratio   *float64     `json:"ratio,omitempty"`
	PerSeed []SeedResult `json:"per_seed"`
}

// SimResult is one experiment: every policy on the same tenant sequences.
type SimResult struct {
	Config   SimConfig      `json:"config"`
	Steps    int            `json:"steps"`
	Policies []PolicyResult `json:"policies"`
}

// BestBaseline, as the policy argument of AverageRatio, stands for the
// non-PrV policy with the fewest violations in each experiment (§8.3
// reports "the best-performing algorithm not using probability of
// violation estimates").
const BestBaseline = "best-baseline"

// Policy returns the named policy's result, nil if absent.
func (r *SimResult) Policy(name string) *PolicyResult {
	for i := range r.Policies {
		if r.Policies[i].Policy == name {
			return &r.Policies[i]
		}
	}
	return nil
}

// BestBaseline is the non-PrV policy with the fewest mean violations (the
// first listed among equals), "" if none ran.
func (r *SimResult) BestBaseline() string {
	best := -1
	for i, p := range r.Policies {
		if !IsPrV(p.Policy) && (best < 0 || p.Violations < r.Policies[best].Violations) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return r.Policies[best].Policy
}

// Ratio is policy's mean violations over reference's: 1 when both are 0,
// ok = false when only the reference's is 0 or either did not run. policy
// may be BestBaseline.
func (r *SimResult) Ratio(policy, reference string) (ratio float64, ok bool) {
	if policy == BestBaseline {
		policy = r.BestBaseline()
	}
	p, q := r.Policy(policy), r.Policy(reference)
	switch {
	case p == nil || q == nil:
		return 0, false
	case q.Violations == 0 && p.Violations == 0:
		return 1, true
	case q.Violations == 0:
		return 0, false
	}
	return p.Violations / q.Violations, true
}

// AverageRatio averages Ratio over experiments, as §8.2 compares policies
// "so that the experiments with high tenant density and many violations do
// not dominate"; n is the number of experiments with a defined ratio.
func AverageRatio(results []*SimResult, policy, reference string) (mean float64, n int) {
	for _, r := range results {
		if x, ok := r.Ratio(policy, reference); ok {
			mean += x
			n++
		}
	}
	if n > 0 {
		mean /= float64(n)
	}
	return mean, n
}

func (c *SimConfig) validate() error {
	bad := func(field string, v any) error { return fmt.Errorf("%w: %s = %v", ErrConfig, field, v) }
	switch {
	case c.Nodes < 1:
		return bad("nodes", c.Nodes)
	case !(c.Capacity[CPU] > 0):
		return bad("capacity cpu", c.Capacity[CPU])
	case !(c.Density > 0) || math.IsInf(c.Density, 1):
		return bad("density", c.Density)
	case !(c.Hours > 0 && c.Hours <= MaxHours):
		return fmt.Errorf("%w: hours = %v, want 0 < hours ≤ %d", ErrConfig, c.Hours, MaxHours)
	case c.Seeds < 1:
		return bad("seeds", c.Seeds)
	case !(c.InitialQuantile > 0 && c.InitialQuantile <= 1):
		return bad("initial_quantile", c.InitialQuantile)
	}
	for r := range NumResources {
		if !(c.Threshold[r] > 0 && c.Threshold[r] <= 1) {
			return bad("threshold "+Resource(r).String(), c.Threshold[r])
		}
		if !(c.Capacity[r] >= 0) || math.IsInf(c.Capacity[r], 1) {
			return bad("capacity "+Resource(r).String(), c.Capacity[r])
		}
	}
	return nil
}

// Simulate runs every policy on cfg.Seeds tenant sequences (§3.3, §8.1). A
// cluster of cfg.Nodes empty nodes is filled with tenants drawn uniformly
// from tenants until the density is reached; every step then (1) tenants
// past their lifetime depart, (2) new tenants are admitted until the
// density is reached again — each placed by the policy with its class's
// initial-demand estimate from repo —, (3) every tenant's demand is read
// from its curve, and (4) every node whose demand reaches f_r·c_r on some
// resource counts a violation and fails over its smallest tenants (by
// Σ_r usage^r/c_r) to other nodes, placed by the policy, until it is below.
//
// tenants should be curves not in repo (the paper fills 𝒟 and simulates
// with disjoint traces). Repetition s draws its sequence from SeedOf(seed,
// s) and is identical for every policy; requests are seeded with
// RequestSeed, so the same configuration gives identical results (but for
// the timings). progress, if not nil, gets the simulated steps done and
// total over all repetitions and policies. Policies run one after another;
// they must have distinct names.
func Simulate(ctx context.Context, repo *Repository, tenants []Curve, cfg SimConfig, policies []Policy, progress func(done, total int64)) (*SimResult, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if repo == nil {
		return nil, fmt.Errorf("%w: repository", ErrEmpty)
	}
	if len(tenants) == 0 {
		return nil, fmt.Errorf("%w: tenant pool", ErrEmpty)
	}
	if len(policies) == 0 {
		return nil, fmt.Errorf("%w: no policies", ErrPolicy)
	}
	for i, p := range policies {
		if slices.ContainsFunc(policies[:i], func(q Policy) bool { return q.Name() == p.Name() }) {
			return nil, fmt.Errorf("%w: %q named twice", ErrPolicy, p.Name())
		}
	}
	for i := range tenants {
		c := &tenants[i]
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("tenant curve %d: %w", i, err)
		}
		if c.Step != repo.Step() {
			return nil, fmt.Errorf("%w: tenant curve %d (%q) has step %v, the repository %v", ErrStep, i, c.ID, c.Step, repo.Step())
		}
		if !(c.Max[CPU] > 0) {
			return nil, fmt.Errorf("%w: tenant curve %d (%q): max cpu %v adds nothing to the density", ErrCurve, i, c.ID, c.Max[CPU])
		}
	}
	steps := max(int(math.Round(cfg.Hours*float64(time.Hour)/float64(repo.Step()))), 1)
	res := &SimResult{Config: cfg, Steps: steps, Policies: make([]PolicyResult, len(policies))}
	total := int64(steps) * int64(cfg.Seeds) * int64(len(policies))
	var done int64
	tick := func(n int64) {
		done += n
		if progress != nil {
			progress(done, total)
		}
	}
	initial := map[string]Vec{}
	for _, c := range tenants {
		if _, ok := initial[c.Class]; !ok {
			initial[c.Class] = repo.InitialDemand(c.Class, cfg.InitialQuantile)
		}
	}
	requests := make([]int64, len(policies))
	for s := range cfg.Seeds {
		seed := SeedOf(cfg.Seed, s)
		for k, pol := range policies {
			r := &run{cfg: &cfg, tenants: tenants, initial: initial, pol: pol, seed: seed, steps: steps}
			start := time.Now()
			out, err := r.simulate(ctx, tick)
			if err != nil {
				return nil, fmt.Errorf("violation: simulate seed %d policy %s: %w", s, pol.Name(), err)
			}
			out.Seconds = time.Since(start).Seconds()
			res.Policies[k].PerSeed = append(res.Policies[k].PerSeed, out)
			requests[k] += r.request
		}
	}
	for k, pol := range policies {
		p := &res.Policies[k]
		p.Policy = pol.Name()
		for _, x := range p.PerSeed {
			p.Violations += float64(x.Violations)
			p.Failovers += float64(x.Failovers)
			p.Seconds += x.Seconds
		}
		p.Violations /= float64(cfg.Seeds)
		p.Failovers /= float64(cfg.Seeds)
		if requests[k] > 0 {
			p.MsPerPlacement = 1000 * p.Seconds / float64(requests[k])
		}
	}
	for k := range res.Policies {
		if x, ok := res.Ratio(res.Policies[k].Policy, cfg.Reference); ok {
			res.Policies[k].Ratio = &x
		}
	}
	return res, nil
}

// run is one repetition of one policy.
type run struct {
	cfg     *SimConfig
	tenants []Curve
	initial map[string]Vec
	pol     Policy
	seed    uint64
	steps   int

	c       Cluster
	curves  map[int64]simTenant
	request int64
	out     SeedResult
}

type simTenant struct {
	curve   *Curve
	created int
}

// progressEvery is how many steps pass between progress reports.
const progressEvery = 64

func (r *run) simulate(ctx context.Context, tick func(int64)) (SeedResult, error) {
	cfg := r.cfg
	r.c = Cluster{Capacity: cfg.Capacity, Threshold: cfg.Threshold, Nodes: make([]Node, cfg.Nodes)}
	r.curves = map[int64]simTenant{}
	r.out = SeedResult{Seed: r.seed}
	limit := r.c.Limit()
	target := cfg.Density * float64(cfg.Nodes) * cfg.Capacity[CPU]
	seq := rand.New(rand.NewPCG(r.seed, 0))
	var nextID int64
	var density float64 // Σ Max_cpu in the cluster
	var tenantSteps int
	pending := 0
	for step := range r.steps {
		if err := ctx.Err(); err != nil {
			return r.out, fmt.Errorf("step %d: %w", step, err)
		}
		// (1) Departures: the curve has no sample for this step.
		for i := range r.c.Nodes {
			n := &r.c.Nodes[i]
			n.Tenants = slices.DeleteFunc(n.Tenants, func(t Tenant) bool {
				st := r.curves[t.ID]
				if step-st.created < st.curve.Lifetime() {
					return false
				}
				density -= t.Max[CPU]
				delete(r.curves, t.ID)
				return true
			})
			n.Load = loadOf(n.Tenants)
		}
		// (2) Admissions until the target density, in sequence order.
		for density < target {
			curve := &r.tenants[seq.IntN(len(r.tenants))]
			t := Tenant{ID: nextID, Class: curve.Class, Usage: r.initial[curve.Class], Max: curve.Max}
			nextID++
			node, ok := r.place(t)
			if !ok {
				r.out.Unplaced++
				break
			}
			r.out.Placed++
			r.add(node, t)
			r.curves[t.ID] = simTenant{curve: curve, created: step}
			density += t.Max[CPU]
		}
		// (3) Demand replay.
		for i := range r.c.Nodes {
			n := &r.c.Nodes[i]
			for k := range n.Tenants {
				t := &n.Tenants[k]
				st := r.curves[t.ID]
				d := step - st.created
				if d != t.Age {
					return r.out, fmt.Errorf("step %d: tenant %d at sample %d has observed %d", step, t.ID, d, t.Age)
				}
				var u Vec
				for res := range NumResources {
					u[res] = st.curve.At(Resource(res), d)
				}
				t.Observe(u)
			}
			n.Load = loadOf(n.Tenants)
			tenantSteps += len(n.Tenants)
		}
		// (4) Violations and failovers, smallest tenants first.
		for i := range r.c.Nodes {
			n := &r.c.Nodes[i]
			if !n.Load.AnyAtLeast(limit) {
				continue
			}
			r.out.Violations++
			for res := range NumResources {
				if n.Load[res] >= limit[res] {
					r.out.ByResource[res]++
				}
			}
			slices.SortStableFunc(n.Tenants, func(a, b Tenant) int {
				return cmp.Or(cmp.Compare(r.size(a), r.size(b)), cmp.Compare(a.ID, b.ID))
			})
			for len(n.Tenants) > 0 && n.Load.AnyAtLeast(limit) {
				t := n.Tenants[0]
				n.Tenants = slices.Delete(n.Tenants, 0, 1)
				n.Load = loadOf(n.Tenants)
				r.out.Failovers++
				n.Unavailable = true
				dest, ok := r.place(t)
				n.Unavailable = false
				if !ok {
					r.out.Dropped++
					density -= t.Max[CPU]
					delete(r.curves, t.ID)
					continue
				}
				r.add(dest, t)
			}
			slices.SortStableFunc(n.Tenants, func(a, b Tenant) int { return cmp.Compare(a.ID, b.ID) })
		}
		pending++
		if pending == progressEvery || step == r.steps-1 {
			tick(int64(pending))
			pending = 0
		}
	}
	r.out.MeanTenants = float64(tenantSteps) / float64(r.steps)
	return r.out, nil
}

func (r *run) place(t Tenant) (int, bool) {
	req := Request{ID: r.request, Seed: RequestSeed(r.seed, r.request), Tenant: t}
	r.request++
	return r.pol.Place(&r.c, req)
}

// add puts t on node i, keeping the node's tenants in ID order.
func (r *run) add(i int, t Tenant) {
	n := &r.c.Nodes[i]
	k, _ := slices.BinarySearchFunc(n.Tenants, t.ID, func(a Tenant, id int64) int { return cmp.Compare(a.ID, id) })
	n.Tenants = slices.Insert(n.Tenants, k, t)
	n.Load = n.Load.Add(t.Usage)
}

// size is the failover order of §8.1: aggregate resource usage relative to
// capacity, smaller tenants first.
func (r *run) size(t Tenant) float64 {
	s := 0.0
	for res := range NumResources {
		if c := r.cfg.Capacity[res]; c > 0 {
			s += t.Usage[res] / c
		}
	}
	return s
}

func loadOf(ts []Tenant) Vec {
	var v Vec
	for k := range ts {
		v = v.Add(ts[k].Usage)
	}
	return v
}
