package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"placelab/analysis"
	"placelab/analysis/lpinterval"
	"placelab/analysis/replay"
	"placelab/optimizer"
	"placelab/optimizer/lpbound"
	store "placelab/sql"
)

// The capacity planner's question (issue 14): how many machines does the
// online allocator need for a trace, and how few could any allocator do
// with? Capacity answers the first half by bisection over replays of the
// trace on scaled copies of the zone, and the second with the configuration
// LP at the trace's peak.
//
//	zone ──scale──▶ inventory(counts) ──RunTrace──▶ rejected / requested ≤ target?
//	  │                    ▲                                  │
//	  │                    └──── bisection on the counts ◀────┘
//	  └──peak of the trace's VMs──▶ lpbound.Solve (SKUs unlimited) ──▶ LB

// Scales of a capacity search.
const (
	// ScaleMix scales the zone's SKU mix: machine counts per SKU in the
	// zone's proportions, bisection on the total.
	ScaleMix = "mix"
	// ScalePerSKU starts from the mix answer and shrinks one SKU at a time.
	ScalePerSKU = "per-sku"
)

// Scales lists the scales Capacity knows.
var Scales = []string{ScaleMix, ScalePerSKU}

// What the rejection target counts (Options.TargetCounts).
const (
	// CountShed counts every VM the trace asked for and the allocator did
	// not serve to its end: rejected, or evicted (a replay never places an
	// evicted VM again). The default: an inventory that meets it holds
	// every VM it does not count, so it can be no smaller than the LP
	// bound less the VMs counted.
	CountShed = "shed"
	// CountRejected counts rejections only; evictions are reported beside
	// them and not charged.
	CountRejected = "rejected"
)

// TargetCountings lists what the target can count.
var TargetCountings = []string{CountShed, CountRejected}

// MaxGrowth caps the search's upper end: it doubles from the zone's
// size (or the LP floor, when larger) at most up to this many times it.
const MaxGrowth = 16

// rejectionSlack absorbs the rounding of target × VMs (0.29 × 100 is
// 28.999999999999996 in binary) so that a target the user wrote as a
// round share allows the whole count it names.
const rejectionSlack = 1e-9

// ErrCapacity reports a capacity search that cannot be run or cannot
// succeed as asked.
var ErrCapacity = errors.New("analysis: capacity")

// Options are the parts of a capacity search that are not the
// run spec.
type Options struct {
	// MaxRejection is the target: the share of requested VMs the allocator
	// may leave unserved over the whole trace, in [0, 1); TargetCounts
	// says which count against it ("" is CountShed).
	MaxRejection float64
	TargetCounts string
	// MaxHealFailure, when set, is a second target: the share of the VMs
	// of hard-failed machines that may fail to heal (heal_failure_rate), in
	// [0, 1). It needs failures (spec.Failures or spec.FailureFile).
	MaxHealFailure *float64
	// Survive is SurviveNone ("" too) or SurviveRack: every single-rack
	// failure healable at the probe's peak sample.
	Survive string
	// Scale is ScaleMix or ScalePerSKU.
	Scale string
	// MaxGrowth caps the upper end at this many times the zone's size (or
	// the floor, when larger); 0 means CapacityMaxGrowth.
	MaxGrowth int
	// LP configures the bound at the peak (its Objective is set here); a
	// solve that stops on LP.TimeLimit still gives a valid, weaker bound.
	LP lpbound.Options
	// OnProbe, when set, is called before each replay with its step and
	// its machines.
	OnProbe func(step string, machines int)
	// Progress reports the current replay's requests done and total.
	Progress func(done, total int64)
}

// Validate refuses options out of range.
func (o *Options) Validate() error {
	if !(o.MaxRejection >= 0 && o.MaxRejection < 1) {
		return fmt.Errorf("%w: max rejection = %v, want a share in [0, 1)", ErrCapacity, o.MaxRejection)
	}
	if o.MaxGrowth < 0 {
		return fmt.Errorf("%w: max growth = %d, want ≥ 1 (0: %d)", ErrCapacity, o.MaxGrowth, MaxGrowth)
	}
	if !slices.Contains(Scales, o.Scale) {
		return fmt.Errorf("%w: scale %q: want %s", ErrCapacity, o.Scale, strings.Join(Scales, " or "))
	}
	if o.TargetCounts != "" && !slices.Contains(TargetCountings, o.TargetCounts) {
		return fmt.Errorf("%w: target counts %q: want %s", ErrCapacity, o.TargetCounts, strings.Join(TargetCountings, " or "))
	}
	return o.validateAvail()
}

// Probe steps.
const (
	StepZone   = "zone"   // the zone's own size
	StepGrow   = "grow"   // the upper end doubling
	StepBisect = "bisect" // bisection on the mix total
	StepCheck  = "check"  // the answer + 1 step of the mix
	StepSKU    = "sku "   // per-SKU bisection, followed by the SKU's name
	StepVerify = "verify" // per-SKU answer minus one machine of one SKU
)

// How the step below a capacity answer is known to fail.
const (
	BelowProbed = "probed" // a replay failed there
	// BelowFloor: the floor proves it (FloorMachines) for at least one SKU's
	// step; the others were probed.
	BelowFloor = "below the floor"
	// BelowOnePerSKU: the mix has one machine of each SKU; it cannot shrink.
	BelowOnePerSKU = "one machine per SKU"
)

// Probe is one replay of the trace on one inventory.
type Probe struct {
	Step     string         `json:"step"`
	Machines int            `json:"machines"`
	PerSKU   map[string]int `json:"machines_per_sku"`
	Cores    float64        `json:"cores"`
	// VMs is the VMs requested, Rejected those the allocator refused,
	// RejectionRate = Rejected / VMs; ShedVMs those it did not serve
	// (Rejected + Evicted), ShedRate = ShedVMs / VMs.
	VMs           int     `json:"vms"`
	Rejected      int     `json:"rejected"`
	RejectionRate float64 `json:"rejection_rate"`
	ShedVMs       int     `json:"shed_vms"`
	ShedRate      float64 `json:"shed_rate"`
	// Met: the probe met every target in force; MetTargets lists the
	// targets it met (TargetRejection, TargetHealFailure, TargetSurviveRack),
	// judged whether in force or not — heal_failure only with a heal target.
	Met        bool     `json:"met"`
	MetTargets []string `json:"met_targets"`
	// Evicted low-priority VMs (not rejections; reported beside them).
	Evicted int `json:"evicted"`
	// The probe's heal figures and peak sample.
	ProbeAvailability
	Seconds float64 `json:"seconds"`
	// CostPerHour is Σ machines × price of a catalog search (RunCatalog);
	// nil otherwise.
	CostPerHour *float64 `json:"cost_per_hour,omitempty"`
	counts      []int
}

// Result is the answer to the capacity planner's question.
type Result struct {
	// AnswerID is the capacity_answer row the search was stored as (0:
	// not stored); LoadID the load of Dataset it read.
	AnswerID int64  `json:"answer_id,omitempty"`
	Dataset  string `json:"dataset"`
	LoadID   int64  `json:"load_id"`
	Policy   string `json:"policy"`
	Scale    string `json:"scale"`
	// MaxRejection is the target share; AllowedRejections the VMs it
	// allows, of VMs requested; TargetCounts what counts against it
	// (CountShed or CountRejected).
	MaxRejection float64 `json:"max_rejection"`
	TargetCounts string  `json:"target_counts"`
	// MaxHealFailure is the heal target share (null: none), Survive the
	// survive mode, Targets the targets in force; Failures and FailureFile
	// the failures every probe replays.
	MaxHealFailure    *float64 `json:"max_heal_failure"`
	Survive           string   `json:"survive"`
	Targets           []string `json:"targets"`
	Failures          string   `json:"failures"`
	FailureFile       string   `json:"failure_file,omitempty"`
	VMs               int      `json:"vms"`
	AllowedRejections int      `json:"allowed_rejections"`
	// Unplaceable VMs have a type no SKU of the zone can host: every
	// inventory rejects them.
	Unplaceable  int            `json:"unplaceable_vms"`
	ZoneMachines int            `json:"zone_machines"`
	ZonePerSKU   map[string]int `json:"zone_machines_per_sku"`
	// Machines (per SKU, and their cores) is the answer: the smallest
	// inventory found on which the allocator meets the target, with its
	// rejections.
	Machines      int            `json:"machines"`
	PerSKU        map[string]int `json:"machines_per_sku"`
	Cores         float64        `json:"cores"`
	Rejected      int            `json:"rejected"`
	RejectionRate float64        `json:"rejection_rate"`
	Evicted       int            `json:"evicted"`
	ShedVMs       int            `json:"shed_vms"`
	ShedRate      float64        `json:"shed_rate"`
	// The answer's heal figures and peak sample (its probe's).
	ProbeAvailability
	// MixMachines is the mix answer the per-SKU search started from.
	MixMachines int `json:"mix_machines"`
	// BisectionMachines is the smallest total the first bisection found
	// meeting the targets. When a larger probe then failed (the probes
	// contradict monotonicity) the answer is instead the smallest total
	// from which every larger probe met them, and Notes say so; otherwise
	// it equals MixMachines.
	BisectionMachines int `json:"bisection_machines"`
	// BelowAnswer says how the step below the answer (one machine less of
	// the mix, or of any SKU) is known to fail: BelowProbed, BelowFloor or
	// BelowOnePerSKU.
	BelowAnswer string `json:"below_answer"`
	// Monotone is false when some probe contradicts monotonicity: an
	// inventory failed although a smaller one (no more machines of any
	// SKU) met the targets. Notes say which, and warn when a heal target
	// held only because the answer had nothing to heal.
	Monotone bool     `json:"monotone"`
	Notes    []string `json:"notes"`
	// The peak: the instant with the most allocated cores among the
	// trace's VMs (ties: the earliest), the VMs alive then and their cores.
	PeakT     float64 `json:"peak_t_s"`
	PeakVMs   int     `json:"peak_vms"`
	PeakCores float64 `json:"peak_cores"`
	// LPMachines is the LP lower bound on the machines (of the zone's
	// SKUs, any number of each) that hold every VM alive at the peak;
	// LPCores the bound on their cores (each machine costing its cores).
	LPMachines float64 `json:"lp_bound_machines"`
	LPCores    float64 `json:"lp_bound_cores"`
	// LPConverged: both solves converged or proved their rounded bound
	// (lpbound.StopProven); otherwise the bounds are valid but may be weak.
	LPConverged bool `json:"lp_converged"`
	// LPStop says why each solve ended: machines, cores, and (when the
	// allocator may evict) the high-priority VMs' machines of the floor.
	LPStop    []lpbound.Stop `json:"lp_stop"`
	LPSeconds float64        `json:"lp_seconds"`
	// FloorMachines is where the search starts: no inventory with fewer
	// machines meets the target. It is the LP bound on the peak's VMs that
	// the allocator cannot shed (every VM; only the high-priority ones when
	// it may evict) minus the placeable VMs the target lets it reject.
	FloorMachines int `json:"floor_machines"`
	// MixLPMachines is the fewest machines of the zone's mix (scaled as
	// the mix search scales it) on which the configuration LP can hold
	// every VM alive at the peak: on any smaller mix the LP is infeasible
	// (a certificate from lpbound), so no allocator holds the peak's VMs
	// there. 0 when no LP certificate was found. It raises the floor when
	// the target allows no rejection and nothing can be evicted.
	MixLPMachines int `json:"lp_mix_machines"`
	// The catalog search's answer (RunCatalog; absent otherwise): its cost
	// per hour, its nodes per catalog type (= machines_per_sku), and the
	// catalog and plan it started from.
	CostPerHour *float64       `json:"cost_per_hour,omitempty"`
	Types       map[string]int `json:"types,omitempty"`
	Catalog     *CatalogFleet  `json:"catalog,omitempty"`
	Probes      []Probe        `json:"probes"`
	Seconds     float64        `json:"seconds"`
}

// Run validates spec and o, loads spec's dataset once and runs
// Capacity on it.
func Run(ctx context.Context, db *store.DB, spec analysis.Spec, o Options) (*Result, error) {
	if err := checkCapacity(&spec, &o); err != nil {
		return nil, err
	}
	tr, err := analysis.LoadTrace(ctx, db, spec.Dataset, spec.From, spec.To)
	if err != nil {
		return nil, err
	}
	if spec.FailureFile != "" {
		if err := spec.ReadFailureFile(ctx, db); err != nil {
			return nil, err
		}
	}
	return RunTrace(ctx, tr, spec, o)
}

// Validate refuses a search that cannot run as asked (spec and o
// out of range, or settings the search cannot honour) before anything is
// read: Run checks the same.
func Validate(spec analysis.Spec, o Options) error {
	return checkCapacity(&spec, &o)
}

func checkCapacity(spec *analysis.Spec, o *Options) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Agents != nil {
		return fmt.Errorf("%w: probes replay with one agent; --agents is not supported", ErrCapacity)
	}
	if spec.Engine.Oversub != nil {
		// The LP bound and the floor hold machines at their nominal cores.
		return fmt.Errorf("%w: CPU oversubscription is not supported: the LP bound and the search's floor assume nominal capacities", ErrCapacity)
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return checkAvail(spec, o)
}

// capacitySearch is the state of one search: the zone, the trace, the
// probes so far by inventory.
type capacitySearch struct {
	ctx      context.Context
	tr       *replay.Trace
	spec     analysis.Spec
	o        Options
	rep      *Result
	zone     []int          // machines per SKU in the zone
	template [][]int        // zone machine indices of each SKU, in zone order
	present  []int          // SKUs with machines
	prices   []float64      // per SKU per hour (a catalog fleet), else nil
	floor    int            // proven: no inventory with fewer machines meets the target
	allowed  int            // rejections the target allows
	seen     map[string]int // counts key → probe index
	reasons  map[string]int // rejections of the last probe by reason
	// runTrace replays a probe: RunTrace (tests put a stand-in there).
	runTrace func(context.Context, *replay.Trace, *analysis.Spec, analysis.RunOptions) (*replay.Result, error)
}

// RunTrace finds the smallest inventory on which spec's allocator meets
// o.MaxRejection over tr, and the LP lower bound at tr's peak.
//
// Inventories are the zone's own machines, all in service (healthy), in
// the zone's clusters and racks: n machines of a SKU are its first n in
// zone order, and beyond the zone's count copies of them in copies of
// their clusters ("c001~2"). With ScaleMix the counts per SKU are the
// zone's mix scaled to a total (mixCounts), found by bisection on the
// total between the floor (FloorMachines, proven) and an upper end that
// doubles from the zone's size until the target holds. With ScalePerSKU,
// from the mix answer, each SKU in turn — most cores first — is shrunk by
// bisection while the target holds: a greedy minimum, not a global one (an
// order that shrinks another SKU first can end elsewhere), checked by
// probing one machine less of every SKU.
//
// Bisection assumes that more machines never reject more VMs, which an
// online allocator does not guarantee; the probes are kept and compared
// pairwise, and Monotone and Notes say when they contradict it.
//
// With o.MaxHealFailure or o.Survive an inventory must meet those targets
// too; how failure draws depend on the machine count is in capacity_avail.go.
func RunTrace(ctx context.Context, tr *replay.Trace, spec analysis.Spec, o Options) (*Result, error) {
	return runSearch(ctx, tr, spec, o, nil)
}

// fleetBase is what a catalog search (RunCatalog) changes of a zone
// search: the counts the mix scales (the plan's nodes per SKU, where the
// zone search takes the zone's own) and each SKU's price per hour.
type fleetBase struct {
	mix    []int
	prices []float64
}

// runSearch is RunTrace, on the zone (fb nil) or on a catalog fleet.
func runSearch(ctx context.Context, tr *replay.Trace, spec analysis.Spec, o Options, fb *fleetBase) (*Result, error) {
	start := time.Now()
	if err := checkCapacity(&spec, &o); err != nil {
		return nil, err
	}
	inv := tr.Inv
	from, to := spec.From, spec.To
	if math.IsInf(from, -1) {
		from = 0
	}
	vms := 0
	for _, r := range replay.Requests(tr, from, to) {
		vms += len(r.VMs)
	}
	if vms == 0 {
		return nil, fmt.Errorf("%w: dataset %q has no VMs in the window", ErrCapacity, tr.Dataset)
	}
	s := &capacitySearch{ctx: ctx, tr: tr, spec: spec, o: o, seen: map[string]int{}, runTrace: analysis.RunTrace,
		zone: make([]int, len(inv.SKUs)), template: make([][]int, len(inv.SKUs))}
	for m, mc := range inv.Machines {
		s.zone[mc.SKU]++
		s.template[mc.SKU] = append(s.template[mc.SKU], m)
	}
	if fb != nil {
		s.zone, s.prices = slices.Clone(fb.mix), fb.prices
	}
	if o.Survive == "" {
		s.o.Survive = SurviveNone
	}
	if s.o.TargetCounts == "" {
		s.o.TargetCounts = CountShed
	}
	rep := &Result{Dataset: tr.Dataset, Policy: spec.Policy, Scale: o.Scale, MaxRejection: o.MaxRejection, TargetCounts: s.o.TargetCounts, VMs: vms, LoadID: tr.LoadID,
		MaxHealFailure: o.MaxHealFailure, Survive: s.o.Survive, Targets: s.o.targets(), Failures: spec.Failures, FailureFile: spec.FailureFile,
		ZoneMachines: analysis.Sum(s.zone), ZonePerSKU: map[string]int{}, Monotone: true, Notes: []string{}, Probes: []Probe{}}
	if rep.Failures == "" {
		rep.Failures = "none"
	}
	s.rep = rep
	if err := s.checkFailureFile(); err != nil {
		return nil, err
	}
	for k, n := range s.zone {
		if n > 0 {
			s.present = append(s.present, k)
			rep.ZonePerSKU[inv.SKUs[k].Name] = n
		}
	}
	s.allowed = allowedOf(o.MaxRejection, vms)
	rep.AllowedRejections = s.allowed

	// The peak and its bound.
	pk := tracePeak(tr, s.zone, from, to)
	rep.PeakT, rep.PeakVMs, rep.PeakCores, rep.Unplaceable = pk.t, pk.vms, pk.cores, pk.unplaceable
	if pk.unplaceable > s.allowed {
		return nil, fmt.Errorf("%w: %d of %d VMs (%.3g%%) have types no SKU of the zone can host; no inventory of these SKUs rejects at most %d",
			ErrCapacity, pk.unplaceable, vms, 100*float64(pk.unplaceable)/float64(vms), s.allowed)
	}
	lb, err := peakBound(ctx, inv, pk.all, o.LP, lpbound.MinCount)
	if err != nil {
		return nil, err
	}
	lc, err := peakBound(ctx, inv, pk.all, o.LP, lpbound.MinCost)
	if err != nil {
		return nil, err
	}
	rep.LPMachines = math.Max(lb.Bound, s.volumeMachines(pk.cores))
	rep.LPCores = math.Max(lc.Bound, math.Ceil(pk.cores-1e-9))
	rep.LPConverged = lpinterval.Optimal(lb) && lpinterval.Optimal(lc)
	rep.LPStop = []lpbound.Stop{lb.Stop, lc.Stop}
	rep.LPSeconds = lb.Seconds + lc.Seconds
	// The floor: removing one VM from a packing frees at most one machine,
	// so an allocator that sheds e of the peak's VMs needs at least
	// LB(held) − e machines; it sheds at most the placeable VMs the target
	// allows plus, when it may evict and evictions are not counted, the
	// low-priority VMs.
	held := rep.LPMachines
	evictFree := spec.Engine.Evict && pk.lowPriority > 0 && s.o.TargetCounts == CountRejected
	if evictFree {
		hb, err := peakBound(ctx, inv, pk.high, o.LP, lpbound.MinCount)
		if err != nil {
			return nil, err
		}
		held = math.Max(hb.Bound, s.volumeMachines(pk.highCores))
		rep.LPStop = append(rep.LPStop, hb.Stop)
		rep.LPSeconds += hb.Seconds
	}
	s.floor = max(1, int(held)-(s.allowed-pk.unplaceable))
	mixLB, secs, err := s.mixBound(pk.all, int(rep.LPMachines))
	if err != nil {
		return nil, err
	}
	rep.MixLPMachines, rep.LPSeconds = mixLB, rep.LPSeconds+secs
	if s.allowed-pk.unplaceable == 0 && !evictFree {
		s.floor = max(s.floor, mixLB)
	}
	rep.FloorMachines = s.floor

	// The mix.
	answer, err := s.mixSearch()
	if err != nil {
		return nil, err
	}
	rep.MixMachines = answer
	final := s.mixCounts(answer)
	if o.Scale == ScalePerSKU {
		mixBelow := rep.BelowAnswer
		shrunk, err := s.perSKUSearch(final)
		if err != nil {
			return nil, err
		}
		final = shrunk
		if q := s.failedAbove(shrunk); q != nil {
			// The smallest inventory no failed probe dominates; the mix
			// answer is one (every larger mix probe met the targets and
			// the per-SKU probes are no larger than it).
			best := -1
			for i := range rep.Probes {
				c := &rep.Probes[i]
				if c.Met && s.failedAbove(c.counts) == nil && (best < 0 || s.smaller(c, &rep.Probes[best])) {
					best = i
				}
			}
			final = rep.Probes[best].counts
			if countsKey(final) == countsKey(s.mixCounts(answer)) {
				rep.BelowAnswer = mixBelow
			} else {
				rep.BelowAnswer = BelowProbed
			}
			s.nonMonotone(fmt.Sprintf("the per-SKU search ended at %d machines, below a probe that failed (%d machines, %s): the answer, %d machines (%s), is the smallest probed from which every larger probe met the targets",
				analysis.Sum(shrunk), q.Machines, q.Step, rep.Probes[best].Machines, rep.Probes[best].Step))
		}
	}
	p := &rep.Probes[s.seen[countsKey(final)]]
	rep.Machines, rep.PerSKU, rep.Cores, rep.Rejected, rep.RejectionRate, rep.Evicted = p.Machines, p.PerSKU, p.Cores, p.Rejected, p.RejectionRate, p.Evicted
	rep.ShedVMs, rep.ShedRate = p.ShedVMs, p.ShedRate
	rep.ProbeAvailability = p.ProbeAvailability
	if s.prices != nil {
		rep.CostPerHour, rep.Types = p.CostPerHour, p.PerSKU
	}
	s.checkMonotone()
	s.availabilityNotes(p)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// mixSearch bisects on the total of the mix and returns the answer; it
// sets BelowAnswer and probes the answer + 1 step. When a probe above the
// answer failed (monotonicity contradicted), it bisects again above the
// largest failure, so that the answer is the smallest total from which
// every larger probe met the targets.
func (s *capacitySearch) mixSearch() (int, error) {
	// Below lowest the mix cannot be made (one machine per SKU) or the
	// floor proves it fails.
	lowest := max(s.floor, len(s.present))
	hi := max(s.rep.ZoneMachines, lowest)
	growth := s.o.MaxGrowth
	if growth == 0 {
		growth = MaxGrowth
	}
	first := hi
	limit := growth * first
	low := lowest - 1
	step := StepZone
	if hi > s.rep.ZoneMachines {
		step = StepGrow
	}
	p, err := s.probe(s.mixCounts(hi), step)
	if err != nil {
		return 0, err
	}
	grow := func(p *Probe) error {
		for !p.Met {
			low = hi
			if hi >= limit {
				return fmt.Errorf("%w: no inventory of up to %d machines (%d× the %d it started from) meets %s: %d machines leave %s%s%s",
					ErrCapacity, limit, growth, first, s.targetsText(), p.Machines, s.unservedText(p), s.lastReasons(), s.missedOthers(p))
			}
			hi = min(2*hi, limit)
			var err error
			if p, err = s.probe(s.mixCounts(hi), StepGrow); err != nil {
				return err
			}
		}
		return nil
	}
	if err := grow(p); err != nil {
		return 0, err
	}
	for round := 0; ; round++ {
		for hi-low > 1 {
			mid := low + (hi-low)/2
			p, err := s.probe(s.mixCounts(mid), StepBisect)
			if err != nil {
				return 0, err
			}
			if p.Met {
				hi = mid
			} else {
				low = mid
			}
		}
		if round == 0 {
			s.rep.BisectionMachines = hi
		}
		switch {
		case low >= lowest:
			s.rep.BelowAnswer = BelowProbed
		case low < s.floor:
			s.rep.BelowAnswer = BelowFloor
		default:
			s.rep.BelowAnswer = BelowOnePerSKU
		}
		if _, err := s.probe(s.mixCounts(hi+1), StepCheck); err != nil {
			return 0, err
		}
		// Every probe so far is of the mix. The answer is a total from
		// which every larger probe met the targets: when one above hi
		// failed, search again above the largest that failed.
		failed := s.largestFailed()
		if failed < hi {
			break
		}
		low, hi = failed, 0
		for _, q := range s.rep.Probes {
			if q.Met && q.Machines > failed && (hi == 0 || q.Machines < hi) {
				hi = q.Machines
			}
		}
		if hi == 0 {
			hi = failed
			p, err := s.probe(s.mixCounts(min(2*hi, limit)), StepGrow)
			if err != nil {
				return 0, err
			}
			hi = p.Machines
			if err := grow(p); err != nil {
				return 0, err
			}
		}
	}
	if hi != s.rep.BisectionMachines {
		s.nonMonotone(fmt.Sprintf("bisection found %d machines meeting the targets, but a larger inventory failed them: the answer, %d machines, is the smallest from which every larger probe met them",
			s.rep.BisectionMachines, hi))
	}
	return hi, nil
}

// failedAbove is a probe that failed the targets with no fewer machines
// of any SKU than counts (and more of one), or nil.
func (s *capacitySearch) failedAbove(counts []int) *Probe {
	key := countsKey(counts)
	for i := range s.rep.Probes {
		q := &s.rep.Probes[i]
		if !q.Met && countsKey(q.counts) != key && leq(counts, q.counts) {
			return q
		}
	}
	return nil
}

// largestFailed is the most machines of a probe that failed the targets,
// or -1.
func (s *capacitySearch) largestFailed() int {
	out := -1
	for _, q := range s.rep.Probes {
		if !q.Met && q.Machines > out {
			out = q.Machines
		}
	}
	return out
}

// perSKUSearch shrinks each SKU of counts in turn (most cores first, ties
// by SKU order) by bisection while the target holds, then probes one
// machine less of every SKU of the result.
func (s *capacitySearch) perSKUSearch(counts []int) ([]int, error) {
	inv := s.tr.Inv
	order := slices.Clone(s.present)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if s.prices != nil && s.prices[a] != s.prices[b] {
			return s.prices[a] > s.prices[b] // a catalog fleet: the dearest type first
		}
		return float64(counts[a])*inv.SKUs[a].Capacity[optimizer.Cores] > float64(counts[b])*inv.SKUs[b].Capacity[optimizer.Cores]
	})
	counts = slices.Clone(counts)
	for _, k := range order {
		others := analysis.Sum(counts) - counts[k]
		// Counts whose total is below the floor fail; -1 stands for "no
		// count below 0".
		low := max(-1, s.floor-others-1)
		hi := counts[k]
		for hi-low > 1 {
			mid := low + (hi-low)/2
			c := slices.Clone(counts)
			c[k] = mid
			p, err := s.probe(c, StepSKU+inv.SKUs[k].Name)
			if err != nil {
				return nil, err
			}
			if p.Met {
				hi = mid
			} else {
				low = mid
			}
		}
		counts[k] = hi
	}
	s.rep.BelowAnswer = BelowProbed
	for _, k := range s.present {
		if counts[k] == 0 {
			continue
		}
		c := slices.Clone(counts)
		c[k]--
		if analysis.Sum(c) < s.floor {
			s.rep.BelowAnswer = BelowFloor
			continue
		}
		p, err := s.probe(c, StepVerify)
		if err != nil {
			return nil, err
		}
		if p.Met {
			s.nonMonotone(fmt.Sprintf("one %s machine less (%d machines) also meets the target: the per-SKU answer is not a local minimum",
				inv.SKUs[k].Name, p.Machines))
		}
	}
	return counts, nil
}

// probe replays the trace on the inventory of counts (once per inventory:
// a replay is deterministic) and records it. Totals below the floor are
// never replayed.
func (s *capacitySearch) probe(counts []int, step string) (*Probe, error) {
	key := countsKey(counts)
	if i, ok := s.seen[key]; ok {
		return &s.rep.Probes[i], nil
	}
	inv := s.tr.Inv
	p := Probe{Step: step, Machines: analysis.Sum(counts), PerSKU: map[string]int{}, counts: slices.Clone(counts)}
	for _, k := range s.present {
		p.PerSKU[inv.SKUs[k].Name] = counts[k]
		p.Cores += float64(counts[k]) * inv.SKUs[k].Capacity[optimizer.Cores]
	}
	if s.prices != nil {
		c := s.cost(counts)
		p.CostPerHour = &c
	}
	if s.o.OnProbe != nil {
		s.o.OnProbe(step, p.Machines)
	}
	t0 := time.Now()
	tr, err := s.scaled(counts)
	if err != nil {
		return nil, err
	}
	spec := s.spec
	if spec.FailureFile != "" {
		spec.FailureRows = s.probeRows(counts)
	}
	res, err := s.runTrace(s.ctx, tr, &spec, analysis.RunOptions{NoWrite: true, Progress: s.o.Progress})
	if err != nil {
		return nil, fmt.Errorf("%w: probe of %d machines: %w", ErrCapacity, p.Machines, err)
	}
	sm := res.Summary
	if sm.VMs != s.rep.VMs {
		return nil, fmt.Errorf("%w: probe of %d machines replayed %d VMs, the trace has %d", ErrCapacity, p.Machines, sm.VMs, s.rep.VMs)
	}
	p.VMs, p.Rejected, p.Evicted = sm.VMs, sm.Rejected, sm.Evicted
	p.RejectionRate = float64(sm.Rejected) / float64(sm.VMs)
	p.ShedVMs = sm.Rejected + sm.Evicted
	p.ShedRate = float64(p.ShedVMs) / float64(sm.VMs)
	if err := s.judge(&p, res); err != nil {
		return nil, err
	}
	p.Seconds = time.Since(t0).Seconds()
	s.seen[key] = len(s.rep.Probes)
	s.rep.Probes = append(s.rep.Probes, p)
	s.reasons = sm.RejectedBy
	return &s.rep.Probes[len(s.rep.Probes)-1], nil
}

// lastReasons names the commonest rejection reasons of the last probe.
func (s *capacitySearch) lastReasons() string {
	type kv struct {
		k string
		v int
	}
	var rs []kv
	for k, v := range s.reasons {
		rs = append(rs, kv{k, v})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].v > rs[j].v || rs[i].v == rs[j].v && rs[i].k < rs[j].k })
	var parts []string
	for i, r := range rs {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", r.k, r.v))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; rejected by " + strings.Join(parts, ", ")
}

// checkMonotone compares the probes pairwise: one that met the targets
// with no more machines of any SKU than one that failed contradicts the
// monotonicity bisection assumes. Each failed probe so contradicted gets a
// note naming the largest such probe that met the target.
func (s *capacitySearch) checkMonotone() {
	ps := s.rep.Probes
	for j := range ps {
		if ps[j].Met {
			continue
		}
		i := -1
		for k := range ps {
			if ps[k].Met && leq(ps[k].counts, ps[j].counts) && (i < 0 || ps[k].Machines > ps[i].Machines) {
				i = k
			}
		}
		if i >= 0 {
			s.nonMonotone(fmt.Sprintf("%d machines (%s) met the targets but %d machines (%s), no fewer of any SKU, did not: %s",
				ps[i].Machines, ps[i].Step, ps[j].Machines, ps[j].Step, s.missed(&ps[j])))
		}
	}
}

func (s *capacitySearch) nonMonotone(note string) {
	s.rep.Monotone = false
	if !slices.Contains(s.rep.Notes, note) {
		s.rep.Notes = append(s.rep.Notes, note)
	}
}

// mixCounts splits n machines over the zone's SKUs in the zone's
// proportions: one machine to every SKU the zone has, then one at a time
// to the SKU k with the largest z_k / (c_k + ½) (Sainte-Laguë's divisors;
// ties: the earlier SKU), z_k the zone's machines of k and c_k those given
// so far. Giving one machine at a time makes every count non-decreasing in
// n (no Alabama paradox), so a larger total is a larger inventory; at the
// zone's size it is the zone's own mix.
func (s *capacitySearch) mixCounts(n int) []int {
	c := make([]int, len(s.zone))
	n = max(n, len(s.present))
	for _, k := range s.present {
		c[k] = 1
	}
	for given := len(s.present); given < n; given++ {
		best, bv := -1, 0.0
		for _, k := range s.present {
			if v := float64(s.zone[k]) / (float64(c[k]) + 0.5); best < 0 || v > bv {
				best, bv = k, v
			}
		}
		c[best]++
	}
	return c
}

// scaled is the trace on the inventory of counts: per SKU k, the zone's
// first counts[k] machines of k in zone order, copies of them past the
// zone's count (copy j > 1 named "<name>~j" in cluster "<cluster>~j"),
// every machine in service, in the node sets of its original. Copies that
// are not in the database get machine ids above the zone's largest.
func (s *capacitySearch) scaled(counts []int) (*replay.Trace, error) {
	inv := s.tr.Inv
	next := int32(0)
	for _, id := range s.tr.MachineIDs {
		next = max(next, id+1)
	}
	rank := make([]int, len(inv.Machines)) // index of each machine within its SKU
	for k := range s.template {
		for i, m := range s.template[k] {
			rank[m] = i
		}
	}
	var specs []optimizer.MachineSpec
	var ids []int32
	var src []int32 // the zone machine each is, or copies
	for copyN := 0; ; copyN++ {
		more := false
		for m, mc := range inv.Machines {
			k := mc.SKU
			i := copyN*len(s.template[k]) + rank[m]
			if i >= counts[k] {
				continue
			}
			more = true
			ms := optimizer.MachineSpec{Name: mc.Name, Cluster: inv.Clusters[mc.Cluster].Name, Rack: inv.Racks[mc.Rack].Name,
				SKU: k, UpdateDomain: mc.UpdateDomain, Healthy: true}
			id := s.tr.MachineIDs[m]
			if copyN > 0 {
				suffix := fmt.Sprintf("~%d", copyN+1)
				ms.Name += suffix
				ms.Cluster += suffix
				id = next
				next++
			}
			specs = append(specs, ms)
			ids = append(ids, id)
			src = append(src, int32(m))
		}
		if !more {
			break
		}
	}
	sc, err := optimizer.NewInventory(inv.SKUs, specs, inv.Types)
	if err != nil {
		return nil, err
	}
	// Node sets (selectors, affinity, tolerations): a copy is in every set
	// its original is in, as a node of the same labels and taints would
	// be; the sets keep their indices, which the VMs' constraints name.
	for i := range inv.NodeSets {
		ns := &inv.NodeSets[i]
		var members []int32
		for j, m := range src {
			if ns.Has(m) {
				members = append(members, int32(j))
			}
		}
		cp, err := sc.NewNodeSet(ns.Name, ns.Kind, members)
		if err != nil {
			return nil, err
		}
		sc.NodeSets = append(sc.NodeSets, cp)
	}
	out := *s.tr
	out.Inv, out.MachineIDs = sc, ids
	return &out, nil
}

// peak is the instant of a trace with the most allocated cores.
type peak struct {
	t           float64
	vms         int
	cores       float64
	all, high   []int // VMs alive per type: all, high-priority only
	highCores   float64
	lowPriority int
	unplaceable int // VMs of the window whose type no SKU of the zone hosts
}

// tracePeak finds the instant with the most allocated cores among the
// VMs a replay of [from, to) holds (each VM alive from max(start, from) to
// its end; departures before arrivals at the same instant, as a replay
// releases them; ties: the earliest), counting a VM's cores as its type's
// smallest demand over the SKUs the zone has machines of. VMs whose type
// runs on none of them are left out (and counted as unplaceable).
func tracePeak(tr *replay.Trace, zone []int, from, to float64) peak {
	inv := tr.Inv
	cores := make([]float64, len(inv.Types))
	for t, ty := range inv.Types {
		cores[t] = math.NaN()
		for k, ok := range ty.Supported {
			if ok && zone[k] > 0 && !(ty.Demand[k][optimizer.Cores] >= cores[t]) {
				cores[t] = ty.Demand[k][optimizer.Cores]
			}
		}
	}
	type event struct {
		t     float64
		arr   bool
		index int
	}
	var pk peak
	var ev []event
	for i, v := range tr.VMs {
		st := math.Max(v.Start, from)
		if st >= to {
			continue
		}
		if math.IsNaN(cores[v.Type]) {
			pk.unplaceable++
			continue
		}
		if v.End <= st {
			continue
		}
		ev = append(ev, event{st, true, i})
		if !math.IsInf(v.End, 1) {
			ev = append(ev, event{v.End, false, i})
		}
	}
	sort.Slice(ev, func(a, b int) bool {
		if ev[a].t != ev[b].t {
			return ev[a].t < ev[b].t
		}
		return !ev[a].arr && ev[b].arr
	})
	var cur float64
	best := math.Inf(-1)
	for i := 0; i < len(ev); {
		j := i
		for j < len(ev) && ev[j].t == ev[i].t {
			c := cores[tr.VMs[ev[j].index].Type]
			if ev[j].arr {
				cur += c
			} else {
				cur -= c
			}
			j++
		}
		if cur > best {
			best, pk.t = cur, ev[i].t
		}
		i = j
	}
	pk.all, pk.high = make([]int, len(inv.Types)), make([]int, len(inv.Types))
	for _, e := range ev {
		v := tr.VMs[e.index]
		if !e.arr || e.t > pk.t || v.End <= pk.t {
			continue
		}
		pk.vms++
		pk.cores += cores[v.Type]
		pk.all[v.Type]++
		if v.Priority == 0 {
			pk.high[v.Type]++
			pk.highCores += cores[v.Type]
		} else {
			pk.lowPriority++
		}
	}
	return pk
}

// peakBound solves the configuration LP over counts VMs per type on bins of
// the zone's SKUs (those with machines) with no limit on their number, so
// that the bound holds for any inventory of these SKUs.
func peakBound(ctx context.Context, inv *optimizer.Inventory, counts []int, opts lpbound.Options, obj lpbound.Objective) (*lpbound.Result, error) {
	if analysis.Sum(counts) == 0 {
		return &lpbound.Result{Converged: true}, nil
	}
	// The zone's SKUs, as lpbound run sees them, without their counts.
	z := lpinterval.NewZone(inv)
	bins := slices.Clone(z.Bins)
	for i := range bins {
		bins[i].Limit = 0
	}
	opts.Objective = obj
	res, err := lpbound.Solve(ctx, &lpbound.Problem{Bins: bins, Items: lpinterval.Items(inv, counts, z.SKUs, z.Dims)}, opts)
	if err != nil && !errors.Is(err, lpbound.ErrTimeLimit) {
		return nil, fmt.Errorf("%w: LP bound at the peak: %w", ErrCapacity, err)
	}
	return res, nil
}

// volumeMachines is the volume bound on machines: cores over the cores of
// the zone's largest SKU.
func (s *capacitySearch) volumeMachines(cores float64) float64 {
	most := 0.0
	for _, k := range s.present {
		most = math.Max(most, s.tr.Inv.SKUs[k].Capacity[optimizer.Cores])
	}
	return math.Ceil(cores/most - 1e-9)
}

func countsKey(c []int) string { return fmt.Sprint(c) }

// leq: a ≤ b in every component.
func leq(a, b []int) bool {
	for i := range a {
		if a[i] > b[i] {
			return false
		}
	}
	return true
}

// mixBound bisects on the mix's total for the fewest machines whose
// configuration LP, each SKU limited to its count in the mix, holds every
// VM alive at the peak (counts: per VM type). The LP's feasibility only
// grows with the total (no SKU's count ever falls as the total rises), so
// bisection is exact; a total counts as infeasible only on lpbound's
// certificate (ErrInfeasible), never on a time limit, so the answer is a
// valid lower bound. It starts above lo (a bound on machines of any SKU
// mix) and returns 0 when even CapacityMaxGrowth times the zone gets no
// certificate either way.
func (s *capacitySearch) mixBound(counts []int, lo int) (int, float64, error) {
	if analysis.Sum(counts) == 0 {
		return 0, 0, nil
	}
	z := lpinterval.NewZone(s.tr.Inv)
	items := lpinterval.Items(s.tr.Inv, counts, z.SKUs, z.Dims)
	secs := 0.0
	feasible := func(total int) (bool, error) {
		mix := s.mixCounts(total)
		bins := slices.Clone(z.Bins)
		for i, k := range z.SKUs {
			bins[i].Limit = mix[k]
		}
		opts := s.o.LP
		opts.Objective = lpbound.MinCount
		r, err := lpbound.Solve(s.ctx, &lpbound.Problem{Bins: bins, Items: items}, opts)
		if r != nil {
			secs += r.Seconds
		}
		switch {
		case errors.Is(err, lpbound.ErrInfeasible):
			return false, nil
		case err == nil || errors.Is(err, lpbound.ErrTimeLimit):
			return true, nil
		}
		return false, fmt.Errorf("%w: LP bound on the mix: %w", ErrCapacity, err)
	}
	zone := max(s.rep.ZoneMachines, 1)
	top := zone
	for {
		ok, err := feasible(top)
		if err != nil {
			return 0, secs, err
		}
		if ok {
			break
		}
		if top >= MaxGrowth*zone {
			return 0, secs, nil
		}
		top *= 2
	}
	low := max(lo, len(s.present)) - 1 // infeasible (or below the mix's least)
	for top-low > 1 {
		mid := low + (top-low)/2
		ok, err := feasible(mid)
		if err != nil {
			return 0, secs, err
		}
		if ok {
			top = mid
		} else {
			low = mid
		}
	}
	return top, secs, nil
}
