package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"placelab/analysis"
	"placelab/analysis/replay"
	"placelab/analysis/replay/outage"
)

// Availability targets of a capacity search (issue 27 in issue 14's
// search): beside the rejection target, a probe may have to heal the VMs of
// its hard failures (MaxHealFailure) and to survive any single-rack
// failure at its peak (Survive). An inventory meets the search when it
// meets every target in force; the floor stays proven, since it is proven
// for the rejection target alone.
//
//	probe ──RunTrace (failures: same spec, same seed)──▶ rejected ≤ allowed        (rejection)
//	                                                   heal failed ≤ X · heal VMs (heal_failure)
//	                                                   healable racks = 100% at the peak sample (survive_rack)
//
// Every probe replays the same failure spec with the same seed, so probes
// differ only in machines — but the failure model draws per machine:
// machine (rack) failures are one Poisson process of rate n·machine-afr
// (r·rack-afr) over the probe's n healthy machines (r racks), each
// failure's machine (rack) drawn uniformly among them (outage.Generate).
// A smaller inventory thus sees fewer failures, and a different one sees
// different failures, not a subset or superset of another's: heal failures
// need not fall as machines are added, even where rejections do. The search
// is honest about it as about rejections: each probe reports the failures
// it drew (machine_failures, rack_failures, heal_vms), checkMonotone compares
// probes on every target in force, and a heal target met only because the
// answer had nothing to heal gets a note. A failure file's rows are the
// zone's machines and racks: a probe replays those it has (probeRows), so a
// larger inventory replays every row a smaller one does. Single-rack
// failures at the peak sample are judged on the inventory's layout, which
// copies the zone's: a partial copy of a cluster has fewer racks than the
// zone's, and a zone cluster of one rack has one at every size.

// ProbeAvailability are a probe's availability figures.
type ProbeAvailability struct {
	// HealVMs are the VMs of hard-failed machines the replay healed or
	// tried to, HealFailed those it could not, HealFailureRate their share
	// (0 with nothing to heal); MachineFailures and RackFailures the hard
	// failures the probe's inventory drew. All 0 without failures.
	HealVMs         int     `json:"heal_vms"`
	HealFailed      int     `json:"heal_failed"`
	HealFailureRate float64 `json:"heal_failure_rate"`
	MachineFailures int     `json:"machine_failures"`
	RackFailures    int     `json:"rack_failures"`
	// The peak sample: the interval sample with the most allocated cores
	// (ties: the earliest), and the share of racks whose failure could be
	// healed in their cluster then.
	PeakSampleT     float64 `json:"peak_sample_t_s"`
	PeakSampleCores float64 `json:"peak_sample_allocated_cores"`
	HealableRackPct float64 `json:"healable_rack_failures_pct"`
	// Sampled: the replay took an interval sample (else the peak fields are 0).
	Sampled bool `json:"-"`
}

// Survive modes: the failures an inventory must be able to heal at its peak.
const (
	SurviveNone = "none"
	// SurviveRack: at the probe's peak sample every single-rack failure can
	// be healed in its cluster under the healing buffer
	// (healable_rack_failures_pct = 100, see package healable).
	SurviveRack = "rack"
)

// SurviveModes lists the survive modes Capacity knows.
var SurviveModes = []string{SurviveNone, SurviveRack}

// Targets a probe can meet, as Probe.MetTargets and
// Result.Targets name them.
const (
	TargetRejection   = "rejection"    // rejected ≤ the VMs MaxRejection allows
	TargetHealFailure = "heal_failure" // heal failed ≤ the VMs MaxHealFailure allows
	TargetSurviveRack = "survive_rack" // every rack failure healable at the peak sample
)

// allRacksHealable is healable_rack_failures_pct when every rack is: the
// sampler's 100·k/n is exactly 100 when k = n.
const allRacksHealable = 100.0

// validateAvail refuses availability targets out of range.
func (o *Options) validateAvail() error {
	if h := o.MaxHealFailure; h != nil && !(*h >= 0 && *h < 1) {
		return fmt.Errorf("%w: max heal failure = %v, want a share in [0, 1)", ErrCapacity, *h)
	}
	if o.Survive != "" && !slices.Contains(SurviveModes, o.Survive) {
		return fmt.Errorf("%w: survive %q: want %s", ErrCapacity, o.Survive, strings.Join(SurviveModes, " or "))
	}
	return nil
}

// checkAvail refuses a heal target with nothing to heal: no failure model
// and no failure file (maintenance reboots in place and heals nothing).
func checkAvail(spec *analysis.Spec, o *Options) error {
	if o.MaxHealFailure == nil {
		return nil
	}
	if _, on, err := outage.ParseModel(spec.Failures); err != nil || on || spec.FailureFile != "" {
		return err
	}
	return fmt.Errorf("%w: --max-heal-failure with --failures none and no --failure-file: there is nothing to heal", ErrCapacity)
}

// targets are the targets of o in force, in the order the report lists them.
func (o *Options) targets() []string {
	t := []string{TargetRejection}
	if o.MaxHealFailure != nil {
		t = append(t, TargetHealFailure)
	}
	if o.Survive == SurviveRack {
		t = append(t, TargetSurviveRack)
	}
	return t
}

// allowedOf is the count of n a target share allows: ⌊share·n⌋, with
// rejectionSlack absorbing the rounding of a round share.
func allowedOf(share float64, n int) int {
	x := share * float64(n)
	return int(math.Floor(x + rejectionSlack*math.Max(1, x)))
}

// capTargets are a search's targets as counts and modes.
type capTargets struct {
	allowed int // unserved VMs the rejection target allows
	// rejectedOnly: the rejection target counts rejections (CountRejected),
	// else every VM shed (CountShed).
	rejectedOnly bool
	maxHeal      *float64 // heal failure share allowed; nil: no heal target
	survive      string   // SurviveNone or SurviveRack
}

// metTargets lists the targets p meets, in report order. Every target is
// judged, whether or not it is in force, so that the table can say which a
// probe would miss; Met is whether it meets those in force.
//
//	rejection:    Rejected ≤ allowed
//	heal_failure: HealFailed ≤ ⌊X · HealVMs⌋  (vacuous when HealVMs = 0)
//	survive_rack: HealableRackPct = 100 at the peak sample
func metTargets(p *Probe, t capTargets) (met []string, all bool) {
	met = []string{}
	all = true
	judge := func(name string, ok, inForce bool) {
		if ok {
			met = append(met, name)
		} else if inForce {
			all = false
		}
	}
	judge(TargetRejection, p.counted(t.rejectedOnly) <= t.allowed, true)
	if t.maxHeal != nil {
		judge(TargetHealFailure, p.HealFailed <= allowedOf(*t.maxHeal, p.HealVMs), true)
	}
	judge(TargetSurviveRack, p.Sampled && p.HealableRackPct >= allRacksHealable, t.survive == SurviveRack)
	return met, all
}

// counted is what the rejection target charges p: its rejections, or
// every VM it shed.
func (p *Probe) counted(rejectedOnly bool) int {
	if rejectedOnly {
		return p.Rejected
	}
	return p.ShedVMs
}

// unservedText says what p charged the rejection target: "3 of 100 VMs
// rejected (3%)", or with evictions counted "5 of 100 VMs not served
// (5%: 3 rejected, 2 evicted)".
func (s *capacitySearch) unservedText(p *Probe) string {
	if s.o.TargetCounts == CountRejected {
		return fmt.Sprintf("%d of %d VMs rejected (%.3g%%)", p.Rejected, p.VMs, 100*p.RejectionRate)
	}
	return fmt.Sprintf("%d of %d VMs not served (%.3g%%: %d rejected, %d evicted)", p.ShedVMs, p.VMs, 100*p.ShedRate, p.Rejected, p.Evicted)
}

// judge fills p's availability figures from its replay and decides which
// targets it met.
//
// The peak sample is the replay's interval sample (every spec.Interval) with
// the most allocated cores, ties the earliest: the busiest state the probe
// was seen in. Its healable_rack_failures_pct is what --survive rack tests;
// a failure between samples is not looked at.
func (s *capacitySearch) judge(p *Probe, res *replay.Result) error {
	sm := &res.Summary
	p.HealVMs, p.HealFailureRate = sm.HealVMs, sm.HealFailureRate
	p.HealFailed = sm.HealFailedVMs
	p.MachineFailures, p.RackFailures = sm.MachineFailures, sm.RackFailures
	p.PeakSampleT, p.PeakSampleCores, p.HealableRackPct, p.Sampled = peakSample(res.Metrics)
	if !p.Sampled && s.o.Survive == SurviveRack {
		return fmt.Errorf("%w: --survive rack: the replay of %d machines took no interval sample (no arrival after the window's start): there is no peak to check",
			ErrCapacity, p.Machines)
	}
	p.MetTargets, p.Met = metTargets(p, capTargets{allowed: s.allowed, rejectedOnly: s.o.TargetCounts == CountRejected,
		maxHeal: s.o.MaxHealFailure, survive: s.o.Survive})
	return nil
}

// peakSample finds the interval sample with the most allocated_cores (ties:
// the earliest) and its healable_rack_failures_pct; ok is false when the
// replay took no sample.
func peakSample(ms []replay.MetricRow) (t, cores, rackPct float64, ok bool) {
	for _, m := range ms {
		if m.Metric == "allocated_cores" && (!ok || m.Value > cores) {
			t, cores, ok = m.T, m.Value, true
		}
	}
	if !ok {
		return 0, 0, 0, false
	}
	for _, m := range ms {
		if m.Metric == "healable_rack_failures_pct" && m.T == t {
			rackPct = m.Value
			break
		}
	}
	return t, cores, rackPct, true
}

// missed says which targets in force p missed and by how much, for notes
// ("" when it met them all).
func (s *capacitySearch) missed(p *Probe) string {
	return strings.Join(s.misses(p, true), "; ")
}

// missedOthers is missed without the rejection target, after "; ", for an
// error that already says what p rejected.
func (s *capacitySearch) missedOthers(p *Probe) string {
	if m := s.misses(p, false); len(m) > 0 {
		return "; " + strings.Join(m, "; ")
	}
	return ""
}

func (s *capacitySearch) misses(p *Probe, rejection bool) []string {
	var out []string
	if rejection && !slices.Contains(p.MetTargets, TargetRejection) {
		out = append(out, s.unservedText(p))
	}
	if s.o.MaxHealFailure != nil && !slices.Contains(p.MetTargets, TargetHealFailure) {
		out = append(out, fmt.Sprintf("%d of %d VMs to heal not healed (%.3g%%)", p.HealFailed, p.HealVMs, 100*p.HealFailureRate))
	}
	if s.o.Survive == SurviveRack && !slices.Contains(p.MetTargets, TargetSurviveRack) {
		msg := fmt.Sprintf("%.3g%% of rack failures healable at the peak sample t = %.1fh", p.HealableRackPct, p.PeakSampleT/3600)
		if one := s.singleRackClusters(p.counts); len(one) > 0 {
			msg += fmt.Sprintf(" (clusters with one rack, which no rack failure there can heal in: %s)", strings.Join(one, ", "))
		}
		out = append(out, msg)
	}
	return out
}

// targetsText writes the targets in force for messages: "0.1% rejected,
// heal failures ≤ 1%, every rack failure healable at the peak".
func (s *capacitySearch) targetsText() string {
	what := "not served (rejected or evicted)"
	if s.o.TargetCounts == CountRejected {
		what = "rejected"
	}
	out := []string{fmt.Sprintf("≤ %.4g%% of VMs %s", 100*s.o.MaxRejection, what)}
	if h := s.o.MaxHealFailure; h != nil {
		out = append(out, fmt.Sprintf("heal failures ≤ %.4g%%", 100**h))
	}
	if s.o.Survive == SurviveRack {
		out = append(out, "every rack failure healable at the peak")
	}
	return strings.Join(out, ", ")
}

// singleRackClusters names the clusters of the inventory of counts that
// have machines in one rack only (at most 5, then "…"). Inventories copy
// the zone's layout, so a zone with such a cluster has one at every size.
func (s *capacitySearch) singleRackClusters(counts []int) []string {
	if counts == nil {
		return nil
	}
	inv := s.tr.Inv
	rank := s.ranks()
	racks := map[string]map[int32]bool{}
	var order []string
	for m, mc := range inv.Machines {
		for copyN := 0; copyN*len(s.template[mc.SKU])+rank[m] < counts[mc.SKU]; copyN++ {
			name := inv.Clusters[mc.Cluster].Name
			if copyN > 0 {
				name += fmt.Sprintf("~%d", copyN+1)
			}
			if racks[name] == nil {
				racks[name] = map[int32]bool{}
				order = append(order, name)
			}
			racks[name][mc.Rack] = true
		}
	}
	var out []string
	for _, c := range order {
		if len(racks[c]) == 1 {
			if len(out) == 5 {
				return append(out, "…")
			}
			out = append(out, c)
		}
	}
	return out
}

// ranks is each zone machine's index within its SKU, in zone order.
func (s *capacitySearch) ranks() []int {
	rank := make([]int, len(s.tr.Inv.Machines))
	for k := range s.template {
		for i, m := range s.template[k] {
			rank[m] = i
		}
	}
	return rank
}

// checkFailureFile validates the spec's failure file against the zone once,
// before any probe, so that a bad row is reported by its file and row.
func (s *capacitySearch) checkFailureFile() error {
	if s.spec.FailureFile == "" {
		return nil
	}
	if s.spec.FailureRows == nil {
		return fmt.Errorf("%w: failure file %s was not read (capacity searches with a failure file go through CapacityPlan)", ErrCapacity, s.spec.FailureFile)
	}
	_, err := outage.FromRows(s.tr.Inv, s.spec.FailureFile, s.spec.FailureRows)
	return err
}

// probeRows are the failure file's rows that the inventory of counts
// replays: a file names the zone's own machines and racks, so a probe keeps
// the rows of the machines it has (its SKU's first counts[k] in zone order)
// and of the racks with at least one of them, rack rows qualified as
// "cluster/rack" (copies past the zone repeat the zone's rack names in
// their own clusters). Copies never fail from the file. A larger inventory
// thus replays every row a smaller one does.
func (s *capacitySearch) probeRows(counts []int) []outage.FileRow {
	inv := s.tr.Inv
	rank := s.ranks()
	has := func(m int32) bool { return rank[m] < counts[inv.Machines[m].SKU] }
	byName := map[string]int32{}
	for m, mc := range inv.Machines {
		byName[mc.Name] = int32(m) // unique: checkFailureFile refuses a name of two machines that a row uses
	}
	rackOf := map[string]int32{}
	for r, rk := range inv.Racks {
		rackOf[inv.Clusters[rk.Cluster].Name+"/"+rk.Name] = int32(r)
	}
	for r, rk := range inv.Racks {
		if _, ok := rackOf[rk.Name]; !ok {
			rackOf[rk.Name] = int32(r) // a bare name a row uses is unique (checkFailureFile)
		}
	}
	out := make([]outage.FileRow, 0, len(s.spec.FailureRows))
	for _, row := range s.spec.FailureRows {
		switch {
		case row.Machine != "":
			if m, ok := byName[row.Machine]; ok && has(m) {
				out = append(out, row)
			}
		case row.Rack != "":
			r, ok := rackOf[row.Rack]
			if !ok || !slices.ContainsFunc(inv.Racks[r].Machines, has) {
				continue
			}
			row.Rack = inv.Clusters[inv.Racks[r].Cluster].Name + "/" + inv.Racks[r].Name
			out = append(out, row)
		}
	}
	return out
}

// availabilityNotes warns where a heal target held only vacuously: the
// answer's replay had no VM to heal.
func (s *capacitySearch) availabilityNotes(answer *Probe) {
	if s.o.MaxHealFailure != nil && answer.HealVMs == 0 {
		s.rep.Notes = append(s.rep.Notes, fmt.Sprintf(
			"the answer's replay had no VM to heal (%d hard machine and %d rack failures drawn, none on a machine hosting VMs): the heal target holds vacuously; a longer window or a higher machine-afr/rack-afr tests it",
			answer.MachineFailures, answer.RackFailures))
	}
}
