package violation

// draw is one tenant's sampled future in one Monte Carlo repetition: the
// drawn trace (as a model), the tenant's age, and end = L − age, so the
// tenant is on the node at the future steps t = 0, …, end−1 where it reads
// the trace at δ = age + t.
type draw struct {
	c   *rec
	age int32
	end int32
}

// violatesModel is line 7 of Algorithm 1 under the compressed models:
//
//	∃ r, t ≥ 0 : Σ_{j : t < end_j} demand_j^r(age_j + t) ≥ limit_r
//
// checked only at t ∈ 𝒯' = {end_j − 1}, the last step of each tenant on the
// node (creationtime(db_j) + tracelifetime(o_j) of §5.3 in discrete time).
// That suffices because the models are monotone: a violation at t among the
// tenants A(t) present then recurs at t' = min_{j∈A(t)} end_j − 1 ≥ t, when
// every tenant of A(t) is still present and none demands less.
func violatesModel(ds []draw, limit Vec) bool {
	for _, p := range ds {
		t := p.end - 1
		var sum Vec
		for _, q := range ds {
			if q.end > t {
				d := q.age + t
				for r := range NumResources {
					sum[r] += q.c.at(r, d)
				}
			}
		}
		if sum.AnyAtLeast(limit) {
			return true
		}
	}
	return false
}

// violatesModelAll is violatesModel checked at every future step, the
// reference the |𝒯'| reduction is tested against.
func violatesModelAll(ds []draw, limit Vec) bool {
	var last int32
	for _, p := range ds {
		last = max(last, p.end)
	}
	for t := range last {
		var sum Vec
		for _, q := range ds {
			if q.end > t {
				for r := range NumResources {
					sum[r] += q.c.at(r, q.age+t)
				}
			}
		}
		if sum.AnyAtLeast(limit) {
			return true
		}
	}
	return false
}

// curveDraw is a draw that replays the full curve instead of its model.
type curveDraw struct {
	c   *Curve
	age int32
	end int32
}

// violatesCurves is line 7 of Algorithm 1 on the full curves: at every
// future step when all is set, else only at 𝒯' (which is exact only when
// the curves are monotone).
func violatesCurves(ds []curveDraw, limit Vec, all bool) bool {
	var last int32
	for _, p := range ds {
		last = max(last, p.end)
	}
	at := func(t int32) bool {
		var sum Vec
		for _, q := range ds {
			if q.end > t {
				for r := range NumResources {
					sum[r] += q.c.At(Resource(r), int(q.age+t))
				}
			}
		}
		return sum.AnyAtLeast(limit)
	}
	if all {
		for t := range last {
			if at(t) {
				return true
			}
		}
		return false
	}
	for _, p := range ds {
		if at(p.end - 1) {
			return true
		}
	}
	return false
}
