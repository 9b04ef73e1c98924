package violation

// draw is one tenant's sampled future in one Monte Carlo repetition: the
// drawn trace (as a model), the tenant's age, and end = L − age, so the
// tenant is on the node at the future steps t = 0, …, end−1 where it reads
// the trace at δ = age + t.
type draw struct {
	c   *rec
	age int32
	end int32
	// anch: the draw reads min(cap_r, off_r + demand_r) (ConditionPrefix);
	// otherwise off is 0 and cap +Inf.
	anch bool
	off  Vec
	cap  Vec
}

// at is the draw's demand of resource r at trace offset δ.
func (q *draw) at(r int, delta int32) float64 {
	v := q.c.at(r, delta)
	if q.anch {
		v = min(q.cap[r], q.off[r]+v)
	}
	return v
}

// peak bounds the draw's demand at every step.
func (q *draw) peak() Vec {
	v := q.c.peak.vec()
	if q.anch {
		for r := range NumResources {
			v[r] = min(q.cap[r], q.off[r]+v[r])
		}
	}
	return v
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
//
// The point at which every tenant is present comes first (it is the likely
// violation), and tenants past their growth phase add their plateau M.
func violatesModel(ds []draw, limit Vec) bool {
	if len(ds) == 0 {
		return false
	}
	first := ds[0].end
	for _, p := range ds[1:] {
		first = min(first, p.end)
	}
	if violatesAt(ds, first-1, limit) {
		return true
	}
	for _, p := range ds {
		if p.end != first && violatesAt(ds, p.end-1, limit) {
			return true
		}
	}
	return false
}

// violatesAt unrolls the three resources; these fail to compile otherwise.
const (
	_ = uint(NumResources - 3)
	_ = uint(3 - NumResources)
)

// violatesAt is the sum of line 7 at one future step t.
func violatesAt(ds []draw, t int32, limit Vec) bool {
	var s0, s1, s2 float64
	for i := range ds {
		q := &ds[i]
		if q.end <= t {
			continue
		}
		c := q.c
		var v0, v1, v2 float64
		if d := q.age + t; d < c.gmax {
			v0, v1, v2 = c.at(0, d), c.at(1, d), c.at(2, d)
		} else {
			v0, v1, v2 = float64(c.m[0]), float64(c.m[1]), float64(c.m[2])
		}
		if q.anch {
			v0 = min(q.cap[0], q.off[0]+v0)
			v1 = min(q.cap[1], q.off[1]+v1)
			v2 = min(q.cap[2], q.off[2]+v2)
		}
		s0 += v0
		s1 += v1
		s2 += v2
	}
	return s0 >= limit[0] || s1 >= limit[1] || s2 >= limit[2]
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
					sum[r] += q.at(r, q.age+t)
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
	off Vec // as in draw; 0 and cap +Inf when not anchored
	cap Vec
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
					sum[r] += min(q.cap[r], q.off[r]+q.c.At(Resource(r), int(q.age+t)))
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
