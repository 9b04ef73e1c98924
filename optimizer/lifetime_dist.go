package optimizer

import "math"

// Lifetime distributions and reprediction, after Google's LAVA (Ling et
// al., MLSys 2025): a VM's lifetime is predicted as a distribution and
// repredicted as the VM ages — the remaining lifetime of a VM of age a is
// that of T given T > a — so a VM that outlives its first prediction stops
// misleading the score of its machine.

// LifetimeDist is a VM's predicted lifetime: log T ~ Normal(Mu, Sigma²),
// the distribution XGBoost's survival:aft objective fits with its normal
// loss. Sigma = 0 is a known lifetime, T = exp(Mu) (the oracle). A zero
// LifetimeDist with Known false is no prediction.
type LifetimeDist struct {
	Mu, Sigma float64
	Known     bool
}

// DistOf is the distribution of a known lifetime of s seconds (the oracle):
// Sigma 0, floored at one second.
func DistOf(s float64) LifetimeDist {
	return LifetimeDist{Mu: math.Log(math.Max(s, 1)), Known: true}
}

// Survival is P(T > t).
func (d LifetimeDist) Survival(t float64) float64 {
	if t <= 0 {
		return 1
	}
	if d.Sigma <= 0 {
		if t < math.Exp(d.Mu) {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc((math.Log(t)-d.Mu)/(d.Sigma*math.Sqrt2))
}

// RemainingMedian is the median remaining lifetime of a VM of this
// distribution that has survived to age a: the r with
// P(T > a + r | T > a) = 1/2, i.e. a + r = exp(Mu + Sigma·Φ⁻¹(1 − S(a)/2)).
// For a known lifetime it is exp(Mu) − a, or 0 once the VM has outlived it
// (then it may end at any moment). Where S(a) underflows (a VM far beyond
// its prediction) the log-normal tail is used: the remaining median of a
// log-normal at large age grows like a·σ²/ln(a) (Mills ratio), so r =
// a·Sigma²/max(1, ln a − Mu).
func (d LifetimeDist) RemainingMedian(a float64) float64 {
	a = math.Max(a, 0)
	if d.Sigma <= 0 {
		return math.Max(math.Exp(d.Mu)-a, 0)
	}
	s := d.Survival(a)
	if s < 1e-12 {
		return a * d.Sigma * d.Sigma / math.Max(1, math.Log(math.Max(a, 1))-d.Mu)
	}
	z := normalQuantile(1 - s/2)
	return math.Max(math.Exp(d.Mu+d.Sigma*z)-a, 0)
}

// normalQuantile is Φ⁻¹(p) for 0 < p < 1.
func normalQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// Life classes: a log grid of remaining lifetimes, coarse enough that a
// machine's class changes rarely, fine enough to separate minutes from
// days. Class k ≥ 1 holds remaining lifetimes in (LifeClassBounds[k-2],
// LifeClassBounds[k-1]] (class 1: up to the first bound); the last class
// everything longer. 0 is no prediction.
var LifeClassBounds = [...]float64{5 * 60, 15 * 60, 30 * 60, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 24 * 3600, 2 * 86400, 4 * 86400, 8 * 86400}

// NumLifeClasses counts the life classes, 0 (none) included.
const NumLifeClasses = len(LifeClassBounds) + 2

// LifeClassOf is the class of a remaining lifetime of r seconds (1 ..
// NumLifeClasses−1; r < 0 or NaN: 0).
func LifeClassOf(r float64) int8 {
	if math.IsNaN(r) || r < 0 {
		return 0
	}
	for k, b := range LifeClassBounds {
		if r <= b {
			return int8(k + 1)
		}
	}
	return int8(len(LifeClassBounds) + 1)
}

// lifeEnd is the predicted end of a placed VM as of time now: its start
// plus its age plus its repredicted median remaining lifetime (a VM placed
// after now counts from its start).
func lifeEnd(p *Placement, now float64) float64 {
	age := now - p.Start
	if age < 0 {
		age = 0
	}
	return p.Start + age + p.Life.RemainingMedian(age)
}

// Repredict refreshes every machine's predicted empty time and life class
// as of time now (LifeNow): each VM's remaining lifetime is repredicted
// from its age, and a machine whose class changed is touched in the
// journal, so cached evaluations of the rules that read the class
// (PreferLifetimeNILAS, PreferLifetimeLAVA) bring themselves up to date.
// Between refreshes a machine's class changes only when a VM is placed on
// or removed from it, so the rules' scores are those of the last refresh:
// stale by at most the refresh cadence.
func (s *State) Repredict(now float64) {
	s.LifeNow = now
	for m := range s.Inv.Machines {
		s.refreshLife(int32(m))
	}
}

// refreshLife recomputes machine m's predicted empty time and class from
// its VMs, touching the journal when the class changed: the latest of
// their repredicted ends when every lifetime is known (the oracle), else
// the median of the time they have all ended (medianEmptyTime).
func (s *State) refreshLife(m int32) {
	if s.LifeEnd == nil {
		return
	}
	end, any, spread := math.Inf(-1), false, false
	for _, vm := range s.onMachine[m] {
		p := s.vms[vm]
		if !p.Life.Known {
			continue
		}
		any = true
		spread = spread || p.Life.Sigma > 0
		end = math.Max(end, lifeEnd(&p, s.LifeNow))
	}
	if spread {
		end = s.medianEmptyTime(m, end)
	}
	var c int8
	if any {
		s.LifeEnd[m] = end
		c = LifeClassOf(end - s.LifeNow)
	} else {
		s.LifeEnd[m] = math.NaN()
	}
	if c != s.LifeClass[m] {
		s.LifeClass[m] = c
		s.Journal.Touch(m, s.Inv.Machines[m].Cluster)
	}
}

// EnableLifeClasses turns on the per-machine predicted empty times and
// life classes (State.LifeEnd, LifeClass) from time now; the NILAS and
// LAVA rules read them. Off (the default) costs nothing.
func (s *State) EnableLifeClasses(now float64) {
	n := len(s.Inv.Machines)
	s.LifeEnd, s.LifeClass, s.LifeNow = make([]float64, n), make([]int8, n), now
	for m := range s.LifeEnd {
		s.LifeEnd[m] = math.NaN()
	}
	s.Repredict(now)
}

// medianEmptyTime is the median of machine m's predicted empty time when
// some of its VMs have a spread (Sigma > 0): the t with P(every VM with a
// prediction has ended by t) = 1/2, each VM's remaining lifetime
// repredicted from its age, the VMs independent:
//
//	∏ᵢ P(Tᵢ ≤ t − startᵢ | Tᵢ > ageᵢ) = 1/2.
//
// The latest of the VMs' own median ends, lo, bounds it below (at lo that
// VM's factor is 1/2); a machine of many uncertain VMs empties well after
// it, which is what LAVA's host lifetime reads from the distributions. A
// known lifetime (Sigma 0, the oracle), or a VM so far past its prediction
// that its survival underflows, is a step at its end. The root is found to
// about 0.1% of the remaining time.
func (s *State) medianEmptyTime(m int32, lo float64) float64 {
	now := s.LifeNow
	vms := s.lifeScratch[:0]
	for _, vm := range s.onMachine[m] {
		p := s.vms[vm]
		d := p.Life
		if !d.Known {
			continue
		}
		age := math.Max(now-p.Start, 0)
		if sa := d.Survival(age); d.Sigma > 0 && sa >= 1e-12 {
			vms = append(vms, lifeVM{start: p.Start, mu: d.Mu, scale: d.Sigma * math.Sqrt2, survived: sa})
		}
		// A step at its end ≤ lo: ended by any t ≥ lo, a factor of 1.
	}
	s.lifeScratch = vms
	// atLeastHalf reports whether every VM has ended by now + r with
	// probability ≥ 1/2 (the product only falls, so it stops early).
	atLeastHalf := func(r float64) bool {
		pr := 1.0
		for i := range vms {
			v := &vms[i]
			x := now + r - v.start // its lifetime if it ends at now + r
			if x <= 0 {
				return false
			}
			pr *= 1 - 0.5*math.Erfc((math.Log(x)-v.mu)/v.scale)/v.survived
			if pr < 0.5 {
				return false
			}
		}
		return true
	}
	// Bracket the remaining time r = t − now by doubling, then bisect on
	// log r: the bracket spans at most a factor 2, so 10 halvings leave
	// 0.07%.
	rlo := math.Max(lo-now, 1)
	rhi := rlo
	for i := 0; i < 64 && !atLeastHalf(rhi); i++ {
		rlo, rhi = rhi, 2*rhi
	}
	a, b := math.Log(rlo), math.Log(rhi)
	for i := 0; i < 10 && a < b; i++ {
		if mid := (a + b) / 2; atLeastHalf(math.Exp(mid)) {
			b = mid
		} else {
			a = mid
		}
	}
	return math.Max(lo, now+math.Exp(b))
}

// lifeVM is a VM's repredicted lifetime in medianEmptyTime: log T ~
// Normal(mu, (scale/√2)²), survived = P(T > its age).
type lifeVM struct {
	start, mu, scale, survived float64
}
