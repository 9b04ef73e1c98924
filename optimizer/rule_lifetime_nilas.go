package optimizer

// RulePreferLifetimeNILAS names PreferLifetimeNILAS.
const RulePreferLifetimeNILAS = "PreferLifetimeNILAS"

// The scores of the life-class rules (K = NumLifeClasses − 1 classes).
const (
	lifeK            = int64(NumLifeClasses - 1)
	lifeUnknownScore = lifeK       // a non-empty machine none of whose VMs has a prediction
	lifeEmptyScore   = 2*lifeK + 1 // an empty machine: the last choice
)

// NILASScore is PreferLifetimeNILAS's score of a machine of life class c
// (State.LifeClass: its repredicted time to empty; 0: no VM with a
// prediction) for a VM of life class b (its predicted lifetime); lower is
// better, with K = NumLifeClasses − 1:
//
//	b = 0 (no prediction)        0              indifferent
//	empty machine                2K + 1         last choice
//	non-empty, c = 0 (unknown)   K
//	c ≥ b ≥ 1                    c − b          0..K−1: the VM ends before the machine would empty; the closest first
//	1 ≤ c < b                    K + b − c      K+1..2K−1: the VM extends the machine's life; the least first
//
// It is Google's NILAS (non-invasive lifetime-aware scoring, LAVA §4) in
// Protean's strict rule order: a host is scored by whether the new VM's
// predicted exit falls before the host's predicted empty time — which
// comes from the repredicted distributions of the VMs already there — so
// that hosts drain on time; the classes keep the score a function of the
// machine's state, which the journal tracks (see Repredict). Being
// non-invasive, it comes after BestFit and breaks its ties
// (LifeClassRules).
func NILASScore(b, c int8, empty bool) int64 {
	return lifeClassScore(b, c, empty, func(b, c int8) int64 { return int64(c - b) })
}

// lifeClassScore is the score both life-class rules share — indifferent
// without a prediction, empty machines last, unknown machines between the
// covering ones (c ≥ b ≥ 1, ranked 0..K−1 by cover) and the ones the VM
// would extend (K + b − c: the least extension first).
func lifeClassScore(b, c int8, empty bool, cover func(b, c int8) int64) int64 {
	switch {
	case b <= 0:
		return 0
	case empty:
		return lifeEmptyScore
	case c <= 0:
		return lifeUnknownScore
	case c >= b:
		return cover(b, c)
	}
	return lifeK + int64(b-c)
}

// PreferLifetimeNILAS is the machine preference of NILASScore, from the
// request's life class (Request.LifeClass, its trait) and the machine's
// repredicted life class (State.LifeClass, which EnableLifeClasses turns
// on; without it every machine scores as unknown or empty).
type PreferLifetimeNILAS struct{}

var _ MachinePreferenceRule = PreferLifetimeNILAS{}

func (PreferLifetimeNILAS) Name() string    { return RulePreferLifetimeNILAS }
func (PreferLifetimeNILAS) Traits() []Trait { return []Trait{TraitLifeClass} }

// HonouredBy: Protean only (RestrictedRule).
func (PreferLifetimeNILAS) HonouredBy() Honour { return HonourProtean }

func (PreferLifetimeNILAS) NewPreference(env *Env, t Traits) MachinePreference {
	return &lifeClassPref{state: env.State, class: int8(t[TraitLifeClass]), score: NILASScore}
}

// lifeClassPref scores machines by a function of the request's and the
// machine's life classes.
type lifeClassPref struct {
	state *State
	class int8
	score func(b, c int8, empty bool) int64
}

func (l *lifeClassPref) Score(m int32) int64 {
	if l.class == 0 {
		return 0
	}
	s := l.state
	var c int8
	if s.LifeClass != nil {
		c = s.LifeClass[m]
	}
	return l.score(l.class, c, s.Count[m] == 0)
}
