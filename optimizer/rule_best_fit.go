package optimizer

// RuleBestFit names BestFit.
const RuleBestFit = "BestFit"

// BestFit is the machine preference BestFit(x, v) (§3.2; the slides'
// multi-dimensional best fit after Panigrahy et al.): the residual capacity
// machine x would have after placing v, weighted by resource scarcity,
//
//	S(x, v) = Σᵢ wᵢ·(aᵢ(x) − dᵢ(v))/cᵢ(x) / Σᵢ wᵢ  ∈ [0, 1],
//
// over the dimensions x has (cᵢ > 0), quantized into N buckets as ⌈S·N⌉
// (§3.3; N = Config.Buckets, 0 = ∞, no quantization). Lower is better: the
// machine closer to full. It depends on the VM type trait.
type BestFit struct{}

var _ MachinePreferenceRule = BestFit{}

func (BestFit) Name() string    { return RuleBestFit }
func (BestFit) Traits() []Trait { return []Trait{TraitType} }

// TypeByShape is true: the rule reads the type only through its demand and
// supported SKUs.
func (BestFit) TypeByShape() bool { return true }

func (BestFit) NewPreference(env *Env, t Traits) MachinePreference {
	ty := &env.Inv.Types[t[TraitType]]
	return &bestFit{state: env.State, inv: env.Inv, demand: ty.Demand, w: env.Cfg.Weights, buckets: env.Cfg.Buckets}
}

type bestFit struct {
	state   *State
	inv     *Inventory
	demand  []Vec
	w       Vec
	buckets int
}

func (b *bestFit) Score(m int32) int64 {
	s := b.inv.Machines[m].SKU
	return Quantize(BestFitScore(b.state.Free(m), b.demand[s], b.inv.SKUs[s].Capacity, b.w), b.buckets)
}

// BestFitScore is S(x, v) above for free capacity a, demand d, capacity c
// and weights w; 0 when nothing is weighted.
func BestFitScore(a, d, c, w Vec) float64 {
	var num, den float64
	for i := range a {
		if c[i] <= 0 || w[i] <= 0 {
			continue
		}
		r := (a[i] - d[i]) / c[i]
		if r < 0 {
			r = 0
		}
		num += w[i] * r
		den += w[i]
	}
	if den == 0 {
		return 0
	}
	return num / den
}
