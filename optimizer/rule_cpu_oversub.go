package optimizer

import (
	"fmt"
	"math"
)

// CPU oversubscription informed by utilization predictions (Resource
// Central §5, Algorithm 1). Production VMs go to non-oversubscribable or
// empty machines and never exceed the physical cores; non-production VMs go
// to oversubscribable or empty machines, whose allocated virtual cores may
// reach MAX_OVERSUB × the physical cores as long as the VMs' predicted P95
// core use stays within MAX_UTIL × the physical cores. A machine takes its
// class from the first VM it receives and loses it when it empties.
const (
	// RuleCPUOversubscription, RulePreferPredictedUtilBelowMax and
	// RulePreferNotOversubscribed name the rules below.
	RuleCPUOversubscription         = "CPUOversubscription"
	RulePreferPredictedUtilBelowMax = "PreferPredictedUtilBelowMax"
	RulePreferNotOversubscribed     = "PreferNotOversubscribed"

	// DefaultMaxOversub is RC §6.2's default MAX_OVERSUB: 125% of the
	// server's cores.
	DefaultMaxOversub = 1.25
	// DefaultMaxUtil is RC §6.2's default MAX_UTIL: 100%.
	DefaultMaxUtil = 1.0
	// ConfidenceThreshold is Algorithm 1's line 10: a prediction scored
	// below it is ignored and the VM assumed to use all its cores.
	ConfidenceThreshold = 0.6
)

// bucketHigh is Highest_Util_in_Bucket of Algorithm 1 for RC Table 3's P95
// buckets; index 0 (no confident prediction) assumes 100%.
var bucketHigh = [5]float64{1, 0.25, 0.50, 0.75, 1}

// PredictedCores is V.util of Algorithm 1: the highest utilization of the
// predicted bucket times the VM's cores (all of them without a prediction).
func PredictedCores(bucket int8, cores float64) float64 {
	if bucket < 0 || int(bucket) >= len(bucketHigh) {
		return cores
	}
	return bucketHigh[bucket] * cores
}

// OversubConfig turns the oversubscription rule on (Config.Oversub).
type OversubConfig struct {
	// MaxOversub is MAX_OVERSUB: allocated virtual cores over physical
	// cores allowed on oversubscribable machines.
	MaxOversub float64
	// MaxUtil is MAX_UTIL: predicted P95 cores over physical cores.
	MaxUtil float64
	// Soft moves the utilization check out of the fit rule into a
	// preference right after it (RC's "implementation as a soft rule"):
	// when no machine passes it, it is disregarded.
	Soft bool
	// Naive oversubscribes without predictions: MAX_OVERSUB only.
	Naive bool
}

// Validate reports settings that cannot run.
func (o *OversubConfig) Validate() error {
	if !(o.MaxOversub >= 1) || !(o.MaxUtil > 0) || math.IsInf(o.MaxOversub, 1) || math.IsInf(o.MaxUtil, 1) { // NaN fails too
		return fmt.Errorf("%w: oversubscription MAX_OVERSUB %v (want ≥ 1), MAX_UTIL %v (want > 0)", ErrBadRequest, o.MaxOversub, o.MaxUtil)
	}
	return nil
}

// oversubOf is the oversubscription setting the rules apply: cfg.Oversub,
// or RC's defaults when the rules run without one.
func oversubOf(cfg *Config) OversubConfig {
	if cfg.Oversub != nil {
		return *cfg.Oversub
	}
	return OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil}
}

// OversubRules is DefaultRules with the fit rule replaced by
// CPUOversubscription and, among the preferences, non-oversubscribing
// machines preferred after the non-empty ones (RC: "a later rule tries to
// fill up non-oversubscribable servers before it places VMs in empty
// servers", and "avoids oversubscribing a server if another server can
// accommodate the new VM without oversubscribing"). The soft variant's
// utilization check comes first: a preference of highest priority filters
// like a validator but is disregarded when no candidate passes it, which is
// RC's soft rule.
func OversubRules(o OversubConfig) Rules {
	r := DefaultRules()
	for i, v := range r.Validators {
		if v.Name() == RuleAreNodeResourcesValid {
			r.Validators[i] = CPUOversubscription{}
		}
	}
	var prefs []MachinePreferenceRule
	if o.Soft && !o.Naive {
		prefs = append(prefs, PreferPredictedUtilBelowMax{})
	}
	r.Preferences = append(prefs, PreferNonEmptyMachines{}, PreferNotOversubscribed{}, BestFit{})
	return r
}

// CPUOversubscription is SELECTCANDIDATESERVERS of RC Algorithm 1 as a
// machine validator: every resource but cores must fit as in
// AreNodeResourcesValid; for cores, with a = allocated cores, u = predicted
// P95 cores, C = physical cores of machine x and v the VM,
//
//	production v:      tag(x) ∈ {empty, production}       and a + cores(v) ≤ C
//	non-production v:  tag(x) ∈ {empty, oversubscribable} and a + cores(v) ≤ MAX_OVERSUB·C
//	                   and (hard variant) u + util(v) ≤ MAX_UTIL·C
//
// It depends on the VM type, the production flag and the predicted bucket.
type CPUOversubscription struct{}

var _ MachineValidatorRule = CPUOversubscription{}

func (CPUOversubscription) Name() string { return RuleCPUOversubscription }
func (CPUOversubscription) Traits() []Trait {
	return []Trait{TraitType, TraitProduction, TraitUtilBucket}
}

// TypeByShape is true: the rule reads the type only through its demand and
// supported SKUs.
func (CPUOversubscription) TypeByShape() bool { return true }

func (CPUOversubscription) NewValidator(env *Env, t Traits) MachineValidator {
	ty := &env.Inv.Types[t[TraitType]]
	o := oversubOf(env.Cfg)
	return &cpuOversub{state: env.State, inv: env.Inv, demand: ty.Demand, supported: ty.Supported,
		prod: t[TraitProduction] == 1, bucket: int8(t[TraitUtilBucket]), o: o}
}

type cpuOversub struct {
	state     *State
	inv       *Inventory
	demand    []Vec
	supported []bool
	prod      bool
	bucket    int8
	o         OversubConfig
}

var _ ResourceValidator = (*cpuOversub)(nil)

func (r *cpuOversub) IsValid(m int32) bool {
	ok, _ := r.fits(m)
	return ok
}

func (r *cpuOversub) Short(m int32) Dim {
	_, short := r.fits(m)
	return short
}

func (r *cpuOversub) fits(m int32) (bool, Dim) {
	s := r.inv.Machines[m].SKU
	if !r.supported[s] {
		return false, NoDim
	}
	return OversubFits(r.state, m, r.demand[s], r.prod, r.bucket, r.o)
}

// OversubFits is CPUOversubscription's predicate: may a VM of demand d
// (production or not, predicted bucket bucket) go on machine m of state st?
// Every dimension but cores must fit the free capacity; cores follow the
// formulas above (the MAX_UTIL test only in the hard variant, o.Soft false,
// and not when o.Naive). It returns the first short dimension, Cores for a
// core limit, or NoDim when the machine's class (production or
// oversubscribable) excludes the VM.
func OversubFits(st *State, m int32, d Vec, prod bool, bucket int8, o OversubConfig) (bool, Dim) {
	free := st.Free(m)
	v := d[Cores]
	d[Cores], free[Cores] = 0, 0
	if short := FirstShort(d, free); short != NoDim {
		return false, short
	}
	C := st.Inv.Capacity(m)[Cores]
	a, tag := st.Used[m][Cores], st.Tag[m]
	if prod {
		switch {
		case tag == TagOversubscribable:
			return false, NoDim
		case a+v > C+capacityEps:
			return false, Cores
		}
		return true, NoDim
	}
	switch {
	case tag == TagProduction:
		return false, NoDim
	case a+v > o.MaxOversub*C+capacityEps:
		return false, Cores
	case !o.Soft && !o.Naive && !utilWithin(st, m, v, bucket, o):
		return false, Cores
	}
	return true, NoDim
}

// utilWithin is the MAX_UTIL test: the predicted P95 cores of machine m's
// VMs plus those of a new VM of v cores in bucket bucket stay within
// MAX_UTIL × the physical cores.
func utilWithin(st *State, m int32, v float64, bucket int8, o OversubConfig) bool {
	return st.PredUtil[m]+PredictedCores(bucket, v) <= o.MaxUtil*st.Inv.Capacity(m)[Cores]+capacityEps
}

// PreferPredictedUtilBelowMax is the soft variant's utilization check
// (RC §5, "implementation as a soft rule"): 0 when the machine's predicted
// P95 cores with v stay within MAX_UTIL·C (or v is production), else 1.
type PreferPredictedUtilBelowMax struct{}

var _ MachinePreferenceRule = PreferPredictedUtilBelowMax{}

func (PreferPredictedUtilBelowMax) Name() string { return RulePreferPredictedUtilBelowMax }
func (PreferPredictedUtilBelowMax) Traits() []Trait {
	return []Trait{TraitType, TraitProduction, TraitUtilBucket}
}

// TypeByShape is true: the rule reads the type only through its demand and
// supported SKUs.
func (PreferPredictedUtilBelowMax) TypeByShape() bool { return true }

func (PreferPredictedUtilBelowMax) NewPreference(env *Env, t Traits) MachinePreference {
	o := oversubOf(env.Cfg)
	return &utilBelowMax{env: env, ty: t[TraitType], prod: t[TraitProduction] == 1, bucket: int8(t[TraitUtilBucket]), o: o}
}

type utilBelowMax struct {
	env    *Env
	ty     int32
	prod   bool
	bucket int8
	o      OversubConfig
}

func (p *utilBelowMax) Score(m int32) int64 {
	if p.prod {
		return 0
	}
	inv := p.env.Inv
	v := inv.Types[p.ty].Demand[inv.Machines[m].SKU][Cores]
	if utilWithin(p.env.State, m, v, p.bucket, p.o) {
		return 0
	}
	return 1
}

// PreferNotOversubscribed prefers machines whose physical cores still hold
// the VM's cores: 0 when a + cores(v) ≤ C, else 1.
type PreferNotOversubscribed struct{}

var _ MachinePreferenceRule = PreferNotOversubscribed{}

func (PreferNotOversubscribed) Name() string    { return RulePreferNotOversubscribed }
func (PreferNotOversubscribed) Traits() []Trait { return []Trait{TraitType} }

// TypeByShape is true: the rule reads the type only through its demand and
// supported SKUs.
func (PreferNotOversubscribed) TypeByShape() bool { return true }

func (PreferNotOversubscribed) NewPreference(env *Env, t Traits) MachinePreference {
	return &notOversub{env: env, ty: t[TraitType]}
}

type notOversub struct {
	env *Env
	ty  int32
}

func (p *notOversub) Score(m int32) int64 {
	inv := p.env.Inv
	C := inv.Capacity(m)[Cores]
	v := inv.Types[p.ty].Demand[inv.Machines[m].SKU][Cores]
	if p.env.State.Used[m][Cores]+v <= C+capacityEps {
		return 0
	}
	return 1
}
