package lpbound

import "sort"

// Column purging: see cg.purge.
const (
	purgeFactor = 1.5
	purgeSlack  = 100
)

// purge drops columns that are far from entering once the master has more
// than purgeFactor columns per row: those at 0 in the master solution
// with the largest reduced costs, down to half of the trigger size, keeping
// the restricted master small (it is solved from scratch every
// iteration). The current solution stays optimal.
func (s *cg) purge(sol *solution) {
	rows := s.ms.rows
	limit := int(purgeFactor*float64(rows)) + purgeSlack
	if len(s.ms.cols) <= limit {
		return
	}
	type cand struct {
		j  int
		rc float64
	}
	var cs []cand
	for j, c := range s.ms.cols {
		if sol.x[j] > 0 {
			continue
		}
		rc := s.ms.obj[s.ms.nArt+j] + sol.mu[c.bin] - c.value(sol.pi)
		if rc > s.tol*s.m.costScale {
			cs = append(cs, cand{j, rc})
		}
	}
	sort.Slice(cs, func(a, b int) bool { return cs[a].rc > cs[b].rc })
	n := min(len(cs), len(s.ms.cols)-limit/2)
	if n <= 0 {
		return
	}
	keep := make([]bool, len(s.ms.cols))
	for j := range keep {
		keep[j] = true
	}
	for _, c := range cs[:n] {
		keep[c.j] = false
		delete(s.have, s.ms.cols[c.j].key())
	}
	var x []float64
	for j, k := range keep {
		if k {
			x = append(x, sol.x[j])
		}
	}
	sol.x = x
	s.ms.keep(keep)
}
