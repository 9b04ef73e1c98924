package drain

import "math"

// ffIndex finds the first node, in a fixed target order, whose free
// capacity covers a demand: a segment tree over the order holding per
// subtree the largest free amount of every dimension (−∞ for nodes that
// take no pod) and whether any node in it holds a pod. A search descends
// leftmost and prunes subtrees where some dimension's maximum falls short,
// so first fit costs O(log n · d) per level of the tree that it visits
// instead of a scan of every full node.
type ffIndex struct {
	d, size int
	pos     []int     // node → leaf position in the order
	at      []int     // leaf position → node, -1 for padding
	max     []float64 // tree node v, dimension k at v*d+k; root v = 1
	busy    []bool    // tree node v: some node below holds a pod
}

func newFFIndex(order []int, n, d int) *ffIndex {
	size := 1
	for size < len(order) {
		size *= 2
	}
	f := &ffIndex{d: d, size: size, pos: make([]int, n), at: make([]int, size),
		max: make([]float64, 2*size*d), busy: make([]bool, 2*size)}
	for k := range f.max {
		f.max[k] = math.Inf(-1)
	}
	for j := range f.at {
		f.at[j] = -1
	}
	for j := range f.pos {
		f.pos[j] = -1
	}
	for j, t := range order {
		f.pos[t] = j
		f.at[j] = t
	}
	return f
}

// set stores node t's free capacity (nil: takes no pod) and whether it is
// busy, and updates the maxima above it.
func (f *ffIndex) set(t int, free []float64, busy bool) {
	if f.pos[t] < 0 {
		return
	}
	d := f.d
	v := f.size + f.pos[t]
	leaf := f.max[v*d : v*d+d]
	if free == nil {
		for k := range leaf {
			leaf[k] = math.Inf(-1)
		}
	} else {
		copy(leaf, free)
	}
	f.busy[v] = busy
	for v > 1 {
		v /= 2
		a, b, c := f.max[v*d:v*d+d], f.max[2*v*d:2*v*d+d], f.max[(2*v+1)*d:(2*v+1)*d+d]
		for k := range a {
			a[k] = max(b[k], c[k])
		}
		f.busy[v] = f.busy[2*v] || f.busy[2*v+1]
	}
}

// covers reports whether some node below tree node v may hold demand.
func (f *ffIndex) covers(v int, demand []float64, busyOnly bool) bool {
	if busyOnly && !f.busy[v] {
		return false
	}
	mx := f.max[v*f.d : v*f.d+f.d]
	for k, x := range demand {
		if x > mx[k]+Eps {
			return false
		}
	}
	return true
}
