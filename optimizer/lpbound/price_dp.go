package lpbound

import "math"

// Limits of the dynamic program.
const (
	// MaxDPCapacity is the largest capacity (after dividing by the gcd of
	// the sizes) the DP runs over: its table is one float64 per unit.
	MaxDPCapacity = 1 << 22
	// DPWorkLimit caps capacity × pieces (binary-split copies) per DP run,
	// about 0.1 s; beyond it branch and bound prices instead.
	DPWorkLimit = 1 << 27
)

// dpPricer solves the one-dimensional bounded knapsack
//
//	max Σ π_i a_i  s.t.  Σ w_i a_i ≤ C,  0 ≤ a_i ≤ d_i integer
//
// exactly for integer sizes by dynamic programming over the capacity. Each
// item type is split into pieces of 1, 2, 4, … copies (binary splitting), so
// the table sweep is a 0-1 knapsack over Σ_i ⌈log₂(d_i+1)⌉ pieces:
// O(C · Σ log d_i) time, one bit per piece and capacity to recover the
// pattern.
type dpPricer struct {
	bin   int
	cap   int   // C / g
	items []int // model items that fit
	w     []int // their sizes / g
	u     []int // their max copies: min(d_i, C/w_i)
	f     []float64
	bits  []uint64
	piece []dpPiece
}

type dpPiece struct {
	idx, q int // index into items, copies
}

// newDPPricer returns nil unless bin k is one-dimensional with an integer
// capacity and integer sizes of a reasonable magnitude.
func newDPPricer(m *model, k int) *dpPricer {
	b := m.bins[k]
	if m.dims != 1 || !isInt(b.cap[0]) || b.cap[0] < 1 || b.cap[0] > 1<<40 {
		return nil
	}
	g := int64(b.cap[0])
	for _, i := range b.fit {
		s := m.items[i].size[k][0]
		if !isInt(s) {
			return nil
		}
		g = gcd(g, int64(s))
	}
	p := &dpPricer{bin: k, cap: int(int64(b.cap[0]) / g)}
	if p.cap > MaxDPCapacity {
		return nil
	}
	for _, i := range b.fit {
		p.items = append(p.items, i)
		p.w = append(p.w, int(int64(m.items[i].size[k][0])/g))
	}
	return p
}

func isInt(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<53 }

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// copies is the most copies of items[x] a pattern can hold: at most
// cnt of them.
func (p *dpPricer) copies(x, cnt int) int {
	if p.w[x] == 0 {
		return cnt
	}
	return min(cnt, p.cap/p.w[x])
}

// work is the table size a run over π would sweep.
func (p *dpPricer) work(pi []float64, cnt []int) int {
	n := 0
	for x, i := range p.items {
		if pi[i] > 0 && p.w[x] > 0 {
			for u := p.copies(x, cnt[i]); u > 0; u >>= 1 {
				n++
			}
		}
	}
	return n * (p.cap + 1)
}

// price returns an optimal pattern with at most cnt[i] copies of item i
// (dense counts over model items, written to a) and its value.
func (p *dpPricer) price(pi []float64, cnt []int, a []int) float64 {
	clear(a)
	value := 0.0
	p.piece = p.piece[:0]
	for x, i := range p.items {
		u := p.copies(x, cnt[i])
		if pi[i] <= 0 || u == 0 {
			continue
		}
		if p.w[x] == 0 { // takes no room
			a[i] = u
			value += pi[i] * float64(u)
			continue
		}
		for q := 1; u > 0; q *= 2 {
			q = min(q, u)
			p.piece = append(p.piece, dpPiece{x, q})
			u -= q
		}
	}
	C := p.cap
	stride := (C + 64) / 64
	if cap(p.f) < C+1 {
		p.f = make([]float64, C+1)
	}
	f := p.f[:C+1]
	clear(f)
	if need := len(p.piece) * stride; cap(p.bits) < need {
		p.bits = make([]uint64, need)
	}
	bits := p.bits[:len(p.piece)*stride]
	clear(bits)
	for j, pc := range p.piece {
		W := pc.q * p.w[pc.idx]
		V := float64(pc.q) * pi[p.items[pc.idx]]
		row := bits[j*stride : (j+1)*stride]
		for c := C; c >= W; c-- {
			if v := f[c-W] + V; v > f[c] {
				f[c] = v
				row[c>>6] |= 1 << (c & 63)
			}
		}
	}
	c := C
	for j := len(p.piece) - 1; j >= 0; j-- {
		if bits[j*stride+c>>6]&(1<<(c&63)) != 0 {
			pc := p.piece[j]
			a[p.items[pc.idx]] += pc.q
			c -= pc.q * p.w[pc.idx]
		}
	}
	return value + f[C]
}
