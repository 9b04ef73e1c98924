package optimizer

import "math"

// Lifetime-aware placement, in the spirit of Google's LAVA (Ling et al.,
// "LAVA: Lifetime-Aware VM Allocation with Learned Distributions and
// Adaptation to Mispredictions", MLSys 2025): a VM goes where the predicted
// end times of its neighbours are closest to its own, so that machines
// drain together and empty machines appear. Predictions are Resource
// Central's lifetime buckets (RC Table 3); a machine's lifetime class is
// the longest bucket among its predicted VMs (LAVA's host lifetime class).
const (
	// RulePreferAlignedLifetime names PreferAlignedLifetime.
	RulePreferAlignedLifetime = "PreferAlignedLifetime"

	// NumLifetimeBuckets counts RC Table 3's lifetime buckets plus the
	// "no prediction" bucket 0: 0 none, 1 ≤ 15 min, 2 15–60 min, 3 1–24 h,
	// 4 > 24 h.
	NumLifetimeBuckets = 5

	// LifetimeBucket1Max, LifetimeBucket2Max and LifetimeBucket3Max are the
	// upper bounds (inclusive, seconds) of RC Table 3's lifetime buckets 1
	// (≤ 15 min), 2 (15–60 min) and 3 (1–24 h); longer is bucket 4.
	LifetimeBucket1Max = 15 * 60.0
	LifetimeBucket2Max = 60 * 60.0
	LifetimeBucket3Max = 24 * 3600.0
)

// LifetimeBucketOf is RC Table 3's lifetime bucket of a lifetime of s
// seconds: 1 for s ≤ 15 min, 2 for ≤ 60 min, 3 for ≤ 24 h, 4 beyond; 0
// (no bucket) for a negative or NaN lifetime.
func LifetimeBucketOf(s float64) int8 {
	switch {
	case math.IsNaN(s) || s < 0:
		return 0
	case s <= LifetimeBucket1Max:
		return 1
	case s <= LifetimeBucket2Max:
		return 2
	case s <= LifetimeBucket3Max:
		return 3
	}
	return 4
}

// lifetimeIndex is the bucket b as an index into per-bucket counts: b
// itself for 1..4, 0 (no prediction) for anything else.
func lifetimeIndex(b int8) int8 {
	if b < 1 || b >= NumLifetimeBuckets {
		return 0
	}
	return b
}

// LifetimeClass is a machine's lifetime class from its VMs per predicted
// bucket (State.LifetimeVMs): the longest bucket holding a VM, 1..4, or 0
// when none of its VMs has a prediction (or it is empty). VMs without a
// prediction do not count: the class claims only what was predicted.
func LifetimeClass(vms [NumLifetimeBuckets]int32) int8 {
	for b := NumLifetimeBuckets - 1; b >= 1; b-- {
		if vms[b] > 0 {
			return int8(b)
		}
	}
	return 0
}

// The scores of AlignedLifetimeScore.
const (
	// lifetimeUnknownMachine scores a non-empty machine none of whose VMs
	// has a prediction: it may or may not outlive the VM.
	lifetimeUnknownMachine = 4
	// lifetimeExtend is the base score of a machine the VM would outlive.
	lifetimeExtend = 4
	// lifetimeEmpty scores an empty machine: the last choice.
	lifetimeEmpty = 8
)

// AlignedLifetimeScore is PreferAlignedLifetime's score of a machine of
// lifetime class c (LifetimeClass; empty: no VM at all) for a VM predicted
// in bucket b; lower is better:
//
//	b = 0 (no prediction)          0            indifferent
//	empty machine                  8            last choice
//	non-empty, c = 0 (unknown)     4
//	c ≥ b ≥ 1 (machine covers v)   c − b        0..3: same class first
//	1 ≤ c < b (v extends it)       4 + b − c    5..7: the longest-lived first
//
// A machine whose predicted life covers the VM's is preferred, the closest
// class first, since the VM then does not hold the machine beyond the
// time it would drain anyway (LAVA: hosts of the VM's lifetime class
// first). Only when none covers it does the VM go where it extends a
// machine's life least, the machine of the longest class below its own; a
// machine with no predicted VM sits between the two.
func AlignedLifetimeScore(b, c int8, empty bool) int64 {
	b, c = lifetimeIndex(b), lifetimeIndex(c)
	switch {
	case b == 0:
		return 0
	case empty:
		return lifetimeEmpty
	case c == 0:
		return lifetimeUnknownMachine
	case c >= b:
		return int64(c - b)
	}
	return lifetimeExtend + int64(b-c)
}

// PreferAlignedLifetime is the machine preference that puts a VM where its
// neighbours' predicted lifetimes match its own (AlignedLifetimeScore, from
// the VM's Request.LifetimeBucket and the machine's State.LifetimeVMs). It
// depends on the lifetime bucket trait alone, which takes five values.
//
// Its state changes only when a VM is placed on or removed from the
// machine (placement, departure, eviction, migration), every one of which
// the journal records, so cached evaluations stay exact. That is why it
// compares lifetime classes and not predicted end times: an end time
// compared with the request's arrival time would change as time passes,
// with no change to any machine for the cache to hear of.
type PreferAlignedLifetime struct{}

var _ MachinePreferenceRule = PreferAlignedLifetime{}

func (PreferAlignedLifetime) Name() string    { return RulePreferAlignedLifetime }
func (PreferAlignedLifetime) Traits() []Trait { return []Trait{TraitLifetimeBucket} }

// HonouredBy: Protean only — a baseline orders machines by its policy, in
// which lifetimes have no part (RestrictedRule).
func (PreferAlignedLifetime) HonouredBy() Honour { return HonourProtean }

func (PreferAlignedLifetime) NewPreference(env *Env, t Traits) MachinePreference {
	return &alignedLifetime{state: env.State, bucket: int8(t[TraitLifetimeBucket])}
}

type alignedLifetime struct {
	state  *State
	bucket int8
}

func (a *alignedLifetime) Score(m int32) int64 {
	if a.bucket == 0 {
		return 0
	}
	s := a.state
	return AlignedLifetimeScore(a.bucket, LifetimeClass(s.LifetimeVMs[m]), s.Count[m] == 0)
}

// LifetimeRules is DefaultRules with PreferAlignedLifetime among the
// machine preferences, after PreferNonEmptyMachines and before BestFit.
// After PreferNonEmptyMachines: empty machines stay the reserve for large
// VMs and failover (§3.2), so alignment never opens a machine the default
// rules would not have opened; it reorders the non-empty candidates only.
// Before BestFit: among non-empty machines lifetime alignment decides and
// packing breaks its ties (BestFit in three buckets, §6.3, leaves many
// ties of its own).
func LifetimeRules() Rules {
	return withPreference(DefaultRules(), PreferAlignedLifetime{}, RulePreferNonEmptyMachines)
}
