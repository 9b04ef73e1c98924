package drain

// fits reports whether a demand fits into free capacity, with Eps slack:
//
//	fits(demand, free) ⇔ ∀k: demand_k ≤ free_k + Eps
func fits(demand, free []float64) bool {
	for k, x := range demand {
		if x > free[k]+Eps {
			return false
		}
	}
	return true
}

// shortDim is the first dimension in which demand does not fit, -1 if none.
func shortDim(demand, free []float64) int {
	for k, x := range demand {
		if x > free[k]+Eps {
			return k
		}
	}
	return -1
}
