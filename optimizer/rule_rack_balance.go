package optimizer

// RuleRackBalance names RackBalance.
const RuleRackBalance = "RackBalance"

// RackBalance is a global machine-selection rule (§5.2.5, "prefer the least
// used rack"): it scores a rack, not a machine, by its allocated share of
// cores, quantized into Config.RackBuckets buckets,
//
//	S(r) = ⌈N · used_cores(r) / cores(r)⌉,
//
// lower is better. It runs last, so it only breaks ties among the machines
// the earlier rules left; racks are the cells of the cached evaluation.
type RackBalance struct{}

var _ GlobalRule = RackBalance{}

func (RackBalance) Name() string    { return RuleRackBalance }
func (RackBalance) Traits() []Trait { return nil }

func (RackBalance) ScoreRack(env *Env, _ Traits, r int32) int64 {
	return Quantize(RackUsedShare(env.Inv, env.State, r), env.Cfg.RackBuckets)
}

// RackUsedShare is the share of rack r's cores that is allocated.
func RackUsedShare(inv *Inventory, s *State, r int32) float64 {
	if c := inv.Racks[r].Cores; c > 0 {
		return s.RackUsedCores[r] / c
	}
	return 0
}
