package optimizer

import "fmt"

// CPU oversubscription informed by utilization predictions (Resource
// Central §5, Algorithm 1). Production VMs go to non-oversubscribable or
// empty machines and never exceed the physical cores; non-production VMs go
// to oversubscribable or empty machines, whose allocated virtual cores may
// reach MAX_OVERSUB × the physical cores as long as the VMs' predicted P95
// core use stays within MAX_UTIL × the physical cores. A machine takes its
// class from the first VM it receives and loses it when it empties.
const (
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
	if o.MaxOversub < 1 || o.MaxUtil <= 0 {
		return fmt.Errorf("%w: oversubscription MAX_OVERSUB %v (want ≥ 1), MAX_UTIL %v (want > 0)", ErrBadRequest, o.MaxOversub, o.MaxUtil)
	}
	return nil
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
		if _, ok := v.(AreNodeResourcesValid); ok {
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

func (CPUOversubscription) Name() string { return "CPUOversubscription" }
func (CPUOversubscription) Traits() []Trait {
	return []Trait{TraitType, TraitProduction, TraitUtilBucket}
}

func (CPUOversubscription) NewValidator(env *Env, t Traits) MachineValidator {
	ty := &env.Inv.Types[t[TraitType]]
	o := OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil}
	if env.Cfg.Oversub != nil {
		o = *env.Cfg.Oversub
	}
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

func (r *cpuOversub) IsValid(m int32) bool {
	s := r.inv.Machines[m].SKU
	if !r.supported[s] {
		return false
	}
	d, free := r.demand[s], r.state.Free(m)
	v := d[Cores]
	d[Cores], free[Cores] = 0, 0
	if !Fits(d, free) {
		return false
	}
	return oversubFits(r.state, m, r.inv.Capacity(m)[Cores], v, r.prod, r.bucket, r.o, !r.o.Soft)
}

// oversubFits is the cores part of CPUOversubscription: can machine m of C
// physical cores take a VM of v cores? checkUtil applies the MAX_UTIL test.
func oversubFits(st *State, m int32, C, v float64, prod bool, bucket int8, o OversubConfig, checkUtil bool) bool {
	a, tag := st.Used[m][Cores], st.Tag[m]
	if prod {
		return tag != TagOversubscribable && a+v <= C+capacityEps
	}
	if tag == TagProduction || a+v > o.MaxOversub*C+capacityEps {
		return false
	}
	if checkUtil && !o.Naive {
		return st.PredUtil[m]+PredictedCores(bucket, v) <= o.MaxUtil*C+capacityEps
	}
	return true
}

// PreferPredictedUtilBelowMax is the soft variant's utilization check
// (RC §5, "implementation as a soft rule"): 0 when the machine's predicted
// P95 cores with v stay within MAX_UTIL·C (or v is production), else 1.
type PreferPredictedUtilBelowMax struct{}

var _ MachinePreferenceRule = PreferPredictedUtilBelowMax{}

func (PreferPredictedUtilBelowMax) Name() string { return "PreferPredictedUtilBelowMax" }
func (PreferPredictedUtilBelowMax) Traits() []Trait {
	return []Trait{TraitType, TraitProduction, TraitUtilBucket}
}

func (PreferPredictedUtilBelowMax) NewPreference(env *Env, t Traits) MachinePreference {
	o := OversubConfig{MaxOversub: DefaultMaxOversub, MaxUtil: DefaultMaxUtil}
	if env.Cfg.Oversub != nil {
		o = *env.Cfg.Oversub
	}
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
	C := inv.Capacity(m)[Cores]
	v := inv.Types[p.ty].Demand[inv.Machines[m].SKU][Cores]
	if p.env.State.PredUtil[m]+PredictedCores(p.bucket, v) <= p.o.MaxUtil*C+capacityEps {
		return 0
	}
	return 1
}

// PreferNotOversubscribed prefers machines whose physical cores still hold
// the VM's cores: 0 when a + cores(v) ≤ C, else 1.
type PreferNotOversubscribed struct{}

var _ MachinePreferenceRule = PreferNotOversubscribed{}

func (PreferNotOversubscribed) Name() string    { return "PreferNotOversubscribed" }
func (PreferNotOversubscribed) Traits() []Trait { return []Trait{TraitType} }

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
