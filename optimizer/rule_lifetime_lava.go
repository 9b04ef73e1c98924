package optimizer

// RulePreferLifetimeLAVA names PreferLifetimeLAVA.
const RulePreferLifetimeLAVA = "PreferLifetimeLAVA"

// LAVAScore is PreferLifetimeLAVA's score of a machine of life class c for
// a VM of life class b (classes as in NILASScore); lower is better, with
// K = NumLifeClasses − 1:
//
//	b = 0 (no prediction)        0              indifferent
//	empty machine                2K + 1         last choice
//	non-empty, c = 0 (unknown)   K
//	c ≥ b ≥ 1                    K − 1 − (c − b)  0..K−1: anchored by the longest-lived machine first
//	1 ≤ c < b                    K + b − c      K+1..2K−1: the VM extends the machine's life; the least first
//
// It is LAVA's placement (Ling et al., MLSys 2025): a host's lifetime class
// is that of its longest-lived VM, and a short-lived VM goes to a host
// anchored by a long-lived one — that host will not empty soon anyway, so
// the VM costs no empty host, and hosts whose VMs all end soon are left to
// drain. Where NILAS fits the VM to the host whose empty time is closest
// after its exit, LAVA prefers the most anchored host. A host's class is
// revised when its VMs outlive their prediction: Repredict recomputes it
// from their repredicted remaining lifetimes.
func LAVAScore(b, c int8, empty bool) int64 {
	return lifeClassScore(b, c, empty, func(b, c int8) int64 { return lifeK - 1 - int64(c-b) })
}

// PreferLifetimeLAVA is the machine preference of LAVAScore (the request's
// life class against the machine's repredicted one).
type PreferLifetimeLAVA struct{}

var _ MachinePreferenceRule = PreferLifetimeLAVA{}

func (PreferLifetimeLAVA) Name() string    { return RulePreferLifetimeLAVA }
func (PreferLifetimeLAVA) Traits() []Trait { return []Trait{TraitLifeClass} }

// HonouredBy: Protean only (RestrictedRule).
func (PreferLifetimeLAVA) HonouredBy() Honour { return HonourProtean }

func (PreferLifetimeLAVA) NewPreference(env *Env, t Traits) MachinePreference {
	return &lifeClassPref{state: env.State, class: int8(t[TraitLifeClass]), score: LAVAScore}
}

// LifeClassRules is DefaultRules with a life-class preference, rule
// PreferLifetimeNILAS{} or PreferLifetimeLAVA{}, placed by what each is:
//
//   - LAVA is a placement algorithm: it goes where LifetimeRules puts
//     PreferAlignedLifetime — after PreferNonEmptyMachines, before BestFit
//     — for the same reasons: empty machines stay the reserve (§3.2), so
//     the rule only reorders the non-empty candidates, and among them
//     lifetime decides and packing breaks ties.
//   - NILAS is non-invasive lifetime-aware scoring (LAVA §4): a lifetime
//     score added to the host ranking the allocator already has, which it
//     must not overturn. In Protean's strict rule order that is the last
//     preference, after BestFit: packing (three buckets, §6.3) ranks the
//     machines and NILAS breaks its ties, which are many.
func LifeClassRules(rule MachinePreferenceRule) Rules {
	after, ok := lifeClassAfter[rule.Name()]
	if !ok {
		after = RulePreferNonEmptyMachines
	}
	return withPreference(DefaultRules(), rule, after)
}

// lifeClassAfter is where LifeClassRules places a life-class preference:
// after the preference named here (a rule it does not list goes where
// LAVA does).
var lifeClassAfter = map[string]string{
	RulePreferLifetimeLAVA:  RulePreferNonEmptyMachines,
	RulePreferLifetimeNILAS: RuleBestFit,
}
