package lpbound

import "math"

// maxDecimalScale: sizes that are multiples of 10^−9 (bytes in GB, millicores
// in cores) are scaled to integers by a power of ten up to 10^maxDecimalScale.
const maxDecimalScale = 9

// gridTol is how close to an integer a scaled size must be to count as one:
// the float of 0.05·100 is 5.000000000000001. Past 10^4 the allowance grows
// as 10^−13 of the value (a float's own error is 2·10^−16 of it), so that
// 4,227,858,432 bytes written as 4.227858432 GB count, and a third scaled
// by 10^9 does not.
const gridTol = 1e-9

// gridScale returns the least multiplier f, a power of ten up to
// 10^maxDecimalScale or else a power of two up to 2^maxDyadicScale, that
// makes every value an integer up to gridTol, and false if none does.
func gridScale(vals []float64) (float64, bool) {
	near := func(f float64) bool {
		for _, v := range vals {
			y := v * f
			if math.Abs(y-math.Round(y)) > max(gridTol, 1e-13*math.Abs(y)) || math.Abs(y) >= 1<<53 {
				return false
			}
		}
		return true
	}
	for e, f := 0, 1.0; e <= maxDecimalScale; e, f = e+1, f*10 {
		if near(f) {
			return f, true
		}
	}
	for e := 1; e <= maxDyadicScale; e++ {
		if f := math.Ldexp(1, e); near(f) {
			return f, true
		}
	}
	return 0, false
}

// newGridPricer is the exact DP for sizes on a decimal or dyadic grid
// (gridScale), a fallback where branch and bound cannot prove a pricing
// problem: pods requesting 50 millicores and 128 MiB on a node of 1.85 cores
// and 4,032 MiB hold twenty or more items, and no fractional bound is near
// enough to the optimum to prune. Each dimension j is scaled by its f_j and
// divided by the gcd g_j of the scaled sizes; its capacity is
// ⌊(cap_j + FitSlack/2)·f_j/g_j⌋, so a pattern fits the grid exactly when
// it fits the real sizes: half of FitSlack absorbs the floats' error (a
// real sum equal to the capacity) and the other half keeps a pattern the
// grid allows within it (sizes in bytes, where FitSlack is one byte). A
// dimension that cannot bind is left out of the table: one whose largest
// size times the most items any pattern holds (by another dimension that
// every item uses, which is kept) is within its capacity, like a node's
// pod count. It returns nil when some dimension has no grid or the table
// would exceed MaxDPCapacity cells.
func newGridPricer(m *model, k int) *dpPricer {
	b := m.bins[k]
	d := m.dims
	if len(b.fit) == 0 {
		return nil
	}
	w := make([][]int, len(b.fit))
	for x := range w {
		w[x] = make([]int, d)
	}
	caps := make([]int, d)
	for j := range d {
		wj, c, ok := gridDim(m, k, j, FitSlack/2)
		if !ok {
			return nil
		}
		caps[j] = c
		for x := range wj {
			w[x][j] = wj[x]
		}
	}
	// The most items a pattern holds, by the dimension (the anchor, always
	// kept) that every item uses and that gives the fewest.
	most, anchor := math.MaxInt, -1
	for j := range d {
		lo := math.MaxInt
		for x := range w {
			lo = min(lo, w[x][j])
		}
		if lo > 0 && caps[j]/lo < most {
			most, anchor = caps[j]/lo, j
		}
	}
	// Each item's copies by every dimension (the cap the table keeps when
	// it leaves a dimension out).
	copies := make([]int, len(b.fit))
	for x, i := range b.fit {
		copies[x] = m.copiesIn(i, k, m.items[i].count)
		for j := range d {
			if w[x][j] > 0 {
				copies[x] = min(copies[x], caps[j]/w[x][j])
			}
		}
	}
	var dims []int
	for j := range d {
		hi, use := 0, 0
		for x := range w {
			hi = max(hi, w[x][j])
			use += copies[x] * w[x][j]
		}
		// Left out: a dimension no item uses, one that the most items a
		// pattern holds (by the anchor) cannot fill, and one that every
		// item's copies together fit, such as an anti-affinity set that one
		// item type uses (its copies capped by the set).
		if hi == 0 || use <= caps[j] || j != anchor && anchor >= 0 && most*hi <= caps[j] {
			continue
		}
		dims = append(dims, j)
	}
	p := &dpPricer{bin: k, cells: 1, dims: dims, most: copies}
	p.caps = make([]int, len(dims))
	p.stride = make([]int, len(dims))
	for y := len(dims) - 1; y >= 0; y-- {
		c := caps[dims[y]]
		p.caps[y] = c
		p.stride[y] = p.cells
		if p.cells > MaxDPCapacity/(c+1) {
			return nil
		}
		p.cells *= c + 1
	}
	for x, i := range b.fit {
		wx := make([]int, len(dims))
		off := 0
		for y, j := range dims {
			wx[y] = w[x][j]
			off += wx[y] * p.stride[y]
		}
		p.items = append(p.items, i)
		p.w = append(p.w, wx)
		p.off = append(p.off, off)
	}
	p.coord = make([]int, len(dims))
	return p
}

// newLinePricer is the DP of bin type k's pricing problem with dimension j
// alone, the others relaxed (each item's copies still capped by every
// dimension): its optimum bounds the pricing value from above, and is
// near it when j is the dimension that binds. Its capacity takes all of
// FitSlack (and a grid tolerance), so every pattern that fits the real
// sizes fits the line. It returns nil when j's sizes have no grid
// (gridScale), no item uses j, or the line exceeds MaxDPCapacity cells.
func newLinePricer(m *model, k, j int) *dpPricer {
	b := m.bins[k]
	if len(b.fit) == 0 {
		return nil
	}
	w, c, ok := gridDim(m, k, j, FitSlack+1e-9)
	if !ok || c == 0 {
		return nil
	}
	p := &dpPricer{bin: k, cells: c + 1, caps: []int{c}, stride: []int{1}, dims: []int{j}, coord: make([]int, 1)}
	used := false
	for x, i := range b.fit {
		p.items = append(p.items, i)
		p.w = append(p.w, []int{w[x]})
		p.off = append(p.off, w[x])
		p.most = append(p.most, m.copiesIn(i, k, m.items[i].count))
		used = used || w[x] > 0
	}
	if !used {
		return nil
	}
	return p
}

// gridDim puts dimension j of bin type k's items on its grid (gridScale,
// in units of the gcd of the scaled sizes): each fitted item's size in
// units and the capacity ⌊(cap + slack)·f/g⌋, the slack deciding which
// patterns at the edge fit (newGridPricer's FitSlack/2 keeps only those
// that fit the real sizes; newLinePricer's whole FitSlack keeps every one
// that does). ok is false when the sizes have no grid or the capacity is
// MaxDPCapacity units or more; every size 0 gives sizes and capacity 0.
func gridDim(m *model, k, j int, slack float64) (w []int, c int, ok bool) {
	b := m.bins[k]
	vals := make([]float64, len(b.fit))
	for x, i := range b.fit {
		vals[x] = m.items[i].size[k][j]
	}
	f, ok := gridScale(vals)
	if !ok {
		return nil, 0, false
	}
	var g int64
	for _, v := range vals {
		g = gcd(g, int64(math.Round(v*f)))
	}
	w = make([]int, len(vals))
	if g == 0 { // every size is 0: the dimension never binds
		return w, 0, true
	}
	cf := math.Floor((b.cap[j] + slack) * f / float64(g))
	if cf >= MaxDPCapacity {
		return nil, 0, false
	}
	for x, v := range vals {
		w[x] = int(math.Round(v*f) / float64(g))
	}
	return w, int(cf), true
}
