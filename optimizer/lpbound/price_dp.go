package lpbound

import "math"

// Limits of the dynamic program.
const (
	// MaxDPCapacity is the most cells the DP table may have (the product
	// over the dimensions of the capacity, in units of the gcd of the
	// sizes, plus one): one float64 per cell.
	MaxDPCapacity = 1 << 22
	// MaxDPCellsMulti is the most cells with more than one dimension:
	// beyond it branch and bound is faster (vbp class7_40_3_1, capacity
	// 150 in 3 dimensions: 2.5 s with the DP over 151³ cells, 0.03 s with
	// branch and bound).
	MaxDPCellsMulti = 1 << 18
	// DPWorkLimit caps cells × pieces (binary-split copies) per DP run,
	// about 0.1 s; beyond it branch and bound prices instead.
	DPWorkLimit = 1 << 27
)

// dpPricer solves the bounded knapsack
//
//	max Σ π_i a_i  s.t.  Σ_i a_i w_ij ≤ C_j (every j),  0 ≤ a_i ≤ d_i integer
//
// exactly for integer sizes by dynamic programming over the capacity
// vectors: a table f over the cells 0 ≤ c ≤ C (C_j = ⌊cap_j/g_j⌋, w_ij =
// s_ij/g_j for g_j the gcd of the sizes in dimension j). Each item type
// is split into pieces of 1, 2, 4, … copies (binary splitting), so the
// sweep is a 0-1 knapsack over Σ_i ⌈log₂(d_i+1)⌉ pieces: O(cells · Σ log d_i)
// time, one bit per piece and cell to recover the pattern. It applies to
// one dimension up to capacities of millions and to several dimensions
// with small integer capacities (cores and GB of a machine), within
// MaxDPCapacity cells.
type dpPricer struct {
	bin    int
	caps   []int // C_j
	stride []int // of dimension j in the flat table (last dimension 1)
	cells  int
	items  []int   // model items that fit
	w      [][]int // their sizes in units of g_j
	off    []int   // their flat offsets Σ_j w_ij·stride_j
	f      []float64
	bits   []uint64
	piece  []dpPiece
	coord  []int
	dims   []int // grid DP only: the model's dimensions in the table
	// most, grid DP only: per item, the copies one empty machine holds by
	// every dimension, the table's and those left out (nil: the table's
	// dimensions are all there are).
	most []int
}

type dpPiece struct {
	idx, q int // index into items, copies
}

// newDPPricer returns nil unless every size on bin type k and its
// capacity are integers (or become integers when scaled by a power of 2 up
// to 2^maxDyadicScale) and the table has at most MaxDPCapacity cells.
func newDPPricer(m *model, k int) *dpPricer {
	b := m.bins[k]
	d := m.dims
	p := &dpPricer{bin: k, caps: make([]int, d), stride: make([]int, d), cells: 1}
	g := make([]int64, d)
	scale := make([]int, d) // sizes × 2^scale are integers
	for j, c := range b.cap {
		e := dyadicScale(c)
		for _, i := range b.fit {
			e = max(e, dyadicScale(m.items[i].size[k][j]))
		}
		if e > maxDyadicScale {
			return nil
		}
		scale[j] = e
		for _, i := range b.fit {
			g[j] = gcd(g[j], int64(math.Ldexp(m.items[i].size[k][j], e)))
		}
	}
	for j := d - 1; j >= 0; j-- {
		if g[j] == 0 { // every size is 0: the dimension never binds
			g[j] = int64(math.Ldexp(b.cap[j], scale[j])) + 1
		}
		p.caps[j] = int(int64(math.Ldexp(b.cap[j], scale[j])) / g[j])
		p.stride[j] = p.cells
		if p.cells > MaxDPCapacity/(p.caps[j]+1) {
			return nil
		}
		p.cells *= p.caps[j] + 1
	}
	if d > 1 && p.cells > MaxDPCellsMulti {
		return nil
	}
	for _, i := range b.fit {
		w := make([]int, d)
		off := 0
		for j := range w {
			w[j] = int(int64(math.Ldexp(m.items[i].size[k][j], scale[j])) / g[j])
			off += w[j] * p.stride[j]
		}
		p.items = append(p.items, i)
		p.w = append(p.w, w)
		p.off = append(p.off, off)
	}
	p.coord = make([]int, d)
	return p
}

func isInt(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<53 }

// maxDyadicScale: sizes that are multiples of 2^−29 (like the fractions
// 1/8, 3/16 of a machine) are scaled to integers exactly. Past 29 the
// grid would be finer than FitSlack, and the DP, exact on the grid, would
// miss patterns that exceed a capacity by less than FitSlack.
const maxDyadicScale = 29

// dyadicScale is the least e with v·2^e an integer (maxDyadicScale+1 if
// none up to maxDyadicScale).
func dyadicScale(v float64) int {
	for e := 0; e <= maxDyadicScale; e++ {
		if isInt(math.Ldexp(v, e)) {
			return e
		}
	}
	return maxDyadicScale + 1
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// copies is the most copies of items[x] a pattern can hold: at most
// cnt of them.
func (p *dpPricer) copies(x, cnt int) int {
	if p.most != nil {
		cnt = min(cnt, p.most[x])
	}
	for j, w := range p.w[x] {
		if w > 0 {
			cnt = min(cnt, p.caps[j]/w)
		}
	}
	return cnt
}

// work is the table size a run over π would sweep.
func (p *dpPricer) work(pi []float64, cnt []int) int {
	n := 0
	for x, i := range p.items {
		if pi[i] > 0 && p.off[x] > 0 {
			for u := p.copies(x, cnt[i]); u > 0; u >>= 1 {
				n++
			}
		}
	}
	return n * p.cells
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
		if p.off[x] == 0 { // takes no room
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
	N := p.cells
	stride := (N + 63) / 64
	if cap(p.f) < N {
		p.f = make([]float64, N)
	}
	f := p.f[:N]
	clear(f)
	if need := len(p.piece) * stride; cap(p.bits) < need {
		p.bits = make([]uint64, need)
	}
	bits := p.bits[:len(p.piece)*stride]
	clear(bits)
	for j, pc := range p.piece {
		V := float64(pc.q) * pi[p.items[pc.idx]]
		row := bits[j*stride : (j+1)*stride]
		if len(p.caps) == 1 {
			W := pc.q * p.w[pc.idx][0]
			for c := N - 1; c >= W; c-- {
				if v := f[c-W] + V; v > f[c] {
					f[c] = v
					row[c>>6] |= 1 << (c & 63)
				}
			}
			continue
		}
		p.sweep(f, row, pc, V)
	}
	c := N - 1
	for j := len(p.piece) - 1; j >= 0; j-- {
		if bits[j*stride+c>>6]&(1<<(c&63)) != 0 {
			pc := p.piece[j]
			a[p.items[pc.idx]] += pc.q
			c -= pc.q * p.off[pc.idx]
		}
	}
	return value + f[N-1]
}

// sweep applies one piece to a multi-dimensional table: cells in
// decreasing flat order, so f[c − W] still holds the value without the
// piece; an odometer runs over the leading coordinates and the last one
// (stride 1) is a contiguous inner loop.
func (p *dpPricer) sweep(f []float64, row []uint64, pc dpPiece, V float64) {
	w := p.w[pc.idx]
	W := pc.q * p.off[pc.idx]
	d := len(p.caps)
	last := d - 1
	lo := pc.q * w[last]
	coord := p.coord[:last]
	copy(coord, p.caps[:last])
	for {
		ok := true
		base := 0
		for j, x := range coord {
			if x < pc.q*w[j] {
				ok = false
				break
			}
			base += x * p.stride[j]
		}
		if ok {
			for c := base + p.caps[last]; c >= base+lo; c-- {
				if v := f[c-W] + V; v > f[c] {
					f[c] = v
					row[c>>6] |= 1 << (c & 63)
				}
			}
		}
		j := last - 1 // decrement the odometer
		for ; j >= 0; j-- {
			if coord[j] > 0 {
				coord[j]--
				break
			}
			coord[j] = p.caps[j]
		}
		if j < 0 {
			return
		}
	}
}
