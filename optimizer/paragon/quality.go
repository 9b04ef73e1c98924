package paragon

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
)

// Settings of the statistical scheme (§3.2).
const (
	// DefaultSampleCandidates is R, the servers examined: with 64, §3.2
	// finds a 10⁻³ chance that none has normalized quality ≥ 0.9.
	DefaultSampleCandidates = 64
	// scoreBits is the precision of hashed scores (§3.2: 14 bits).
	scoreBits = 14
	// maxRehashes bounds the hash chain per sample relative to R, so a
	// cluster smaller than R still ends.
	maxRehashes = 8
)

// Quality is §3.2's colocation quality of a server for a new application:
//
//	Q = sign(Σ_k (t_k − c_k)) · |1 − Σ_k |t_k − c_k| / K|
//
// with t the server's tolerated sensitivity, c the application's caused
// sensitivity and K = len(t) SoIs: ‖t − c‖₁ is normalized by its maximum,
// K, reached when t = 1 and c = 0 everywhere. Positive Q preserves QoS,
// negative violates it; larger is better. It panics on vectors of
// different lengths.
func Quality(t, c []float64) float64 {
	if len(t) != len(c) {
		panic("paragon: Quality: vectors of different lengths")
	}
	if len(t) == 0 {
		return 0
	}
	sum, l1 := 0.0, 0.0
	for k := range t {
		d := t[k] - c[k]
		sum += d
		l1 += math.Abs(d)
	}
	sign := 1.0
	if sum < 0 {
		sign = -1
	}
	return sign * math.Abs(1-l1/float64(len(t)))
}

// NormalizeQuality maps q from the range [lo, hi] of the qualities seen to
// [0, 1]: (q − lo)/(hi − lo), which for lo ≤ 0 ≤ hi is §3.2's
// (q + |min|)/(|max| + |min|). A degenerate range gives 1.
func NormalizeQuality(q, lo, hi float64) float64 {
	if hi <= lo {
		return 1
	}
	return math.Min(1, math.Max(0, (q-lo)/(hi-lo)))
}

// MissProbability is the chance that none of r candidates has normalized
// quality above a, when qualities are uniform on [0, 1] (§3.2): a^r.
func MissProbability(a float64, r int) float64 { return math.Pow(a, float64(r)) }

// CandidatesFor returns the fewest candidates r with MissProbability(a, r)
// ≤ p: ⌈log p / log a⌉.
func CandidatesFor(a, p float64) int {
	if a <= 0 || p >= 1 {
		return 1
	}
	if a >= 1 || p <= 0 {
		return math.MaxInt
	}
	return int(math.Ceil(math.Log(p)/math.Log(a) - 1e-12))
}

// SampleOptions configure SelectSampled. A zero field takes its default.
type SampleOptions struct {
	// Candidates is R, the number of distinct servers examined.
	Candidates int
	// IgnoreConfig drops the preference for the best configuration.
	IgnoreConfig bool
	// Headroom uses Server.Headroom for t instead of §3.2's
	// Server.Tolerated (the minimum over the residents).
	Headroom     bool
	ConfigBucket float64
	Seed         uint64
}

// SelectSampled is §3.2's statistical scheme for very large clusters: it
// examines R servers drawn by hashing instead of all of them, so its cost
// does not grow with the cluster. For SoI k in turn, the new application's
// caused score, quantized to 14 bits, is hashed with h_k (SHA-1 keyed by
// seed and k); the digest names a server (mod the server count) and
// re-hashing the digest names the next, until R distinct servers are
// found. Among those with room for its cores (all of them if none has),
// it takes the best configuration bucket, then the highest Quality with
// t = the server's tolerance (Headroom: its headroom), then the first drawn.
func SelectSampled(c *Cluster, req *Request, o SampleOptions) Decision {
	if o.Candidates <= 0 {
		o.Candidates = DefaultSampleCandidates
	}
	if o.ConfigBucket <= 0 {
		o.ConfigBucket = DefaultConfigBucket
	}
	dec := Decision{Server: -1}
	n := len(c.Servers)
	if n == 0 {
		return dec
	}
	r := min(o.Candidates, n)
	seen := make(map[int]bool, r)
	drawn := make([]int, 0, r)
	var seed [8]byte
	binary.BigEndian.PutUint64(seed[:], o.Seed)
	sois := max(1, len(req.Class.Caused))
	chains := make([][]byte, sois)
	for tries := 0; len(drawn) < r && tries < maxRehashes*r+n; tries++ {
		k := tries % sois
		if chains[k] == nil {
			var in [12]byte
			copy(in[:8], seed[:])
			binary.BigEndian.PutUint16(in[8:], uint16(k))
			score := 0.0
			if k < len(req.Class.Caused) {
				score = req.Class.Caused[k]
			}
			binary.BigEndian.PutUint16(in[10:], uint16(math.Round(clamp01(score)*(1<<scoreBits-1))))
			h := sha1.Sum(in[:])
			chains[k] = h[:]
		} else {
			h := sha1.Sum(chains[k])
			chains[k] = h[:]
		}
		id := int(binary.BigEndian.Uint64(chains[k][:8]) % uint64(n))
		if !seen[id] {
			seen[id] = true
			drawn = append(drawn, id)
		}
	}
	room := drawn[:0:0]
	for _, s := range drawn {
		if c.Servers[s].FreeCores() >= req.Cores {
			room = append(room, s)
		}
	}
	if len(room) == 0 {
		room = drawn
		dec.Overcommitted = true
	}
	dec.Candidates = len(room)
	qs := make([]float64, len(room))
	lo, hi := math.Inf(1), math.Inf(-1)
	t := make([]float64, c.sois)
	for i, s := range room {
		srv := &c.Servers[s]
		copy(t, srv.Tolerated)
		if o.Headroom {
			copy(t, srv.Headroom)
		}
		qs[i] = Quality(t, req.Class.Caused)
		dec.Checks += c.sois
		lo, hi = math.Min(lo, qs[i]), math.Max(hi, qs[i])
	}
	best := -1
	var bestBucket int64
	for i, s := range room {
		var bucket int64
		if !o.IgnoreConfig {
			bucket = int64(math.Floor(req.Class.Perf[c.Servers[s].Config]/o.ConfigBucket + 1e-9))
		}
		if best < 0 || bucket > bestBucket || (bucket == bestBucket && qs[i] > qs[best]) {
			best, bestBucket = i, bucket
		}
	}
	dec.Server = room[best]
	dec.Survivors = len(room)
	dec.Quality = NormalizeQuality(qs[best], lo, hi)
	dec.NegativeSoIs = negativeSoIs(&c.Servers[dec.Server], req, o.Headroom)
	return dec
}
