package outage

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// YearSeconds is the year every rate is per: 365 days.
const YearSeconds = 365 * 86400.0

// Defaults of the failure model (`--failures default`). Each says where its
// figure comes from and how the constant is derived from it.
const (
	// DefaultMachineAFR is machine failures per machine-year: Jeff Dean's
	// "typical first year for a new cluster" (LADIS 2009 keynote "Designs,
	// Lessons and Advice from Building Large Distributed Systems"; the same
	// list at Google I/O 2008) counts ~1,000 individual machine failures in a
	// cluster of ~1,800 machines: 1,000 / 1,800 machine-years ≈ 0.556.
	DefaultMachineAFR = 1000.0 / 1800.0

	// DefaultRackAFR is rack (fault-domain) failures per rack-year: the same
	// list counts ~20 rack failures a year ("40-80 machines instantly
	// disappear, 1-6 hours to get back"); with the 40 servers per rack of
	// the same talk the 1,800-machine cluster has 45 racks: 20 / 45
	// rack-years ≈ 0.444. (Racks of 80 would give 0.89; we take the talk's
	// stated 40 per rack.)
	DefaultRackAFR = 20.0 / 45.0

	// DefaultRebootShare is the share of machine failures that are a host
	// reboot (VMs come back in place after DefaultRebootMinutes) rather than
	// a hardware failure. Ford et al., "Availability in Globally Distributed
	// Storage Systems" (OSDI 2010, §3), find that most node unavailability
	// events are short restarts rather than hardware faults; our reading of
	// their duration distribution is that under 10% of events last longer
	// than 15 minutes, hence 0.9. The 10% figure could not be confirmed
	// from the text available to us: treat the share as a one-digit
	// estimate and override it (reboot-share=) from your own fleet.
	DefaultRebootShare = 0.9

	// DefaultRepairMedianHours and DefaultRepairSigma are the lognormal
	// repair time of a hard failure: median·e^(σ·Z). Schroeder & Gibson,
	// "A Large-Scale Study of Failures in High-Performance Computing
	// Systems" (DSN 2006; LANL, 23,000 failures on 20+ systems) find repair
	// times well modeled by a lognormal, with mean repair time ranging "from
	// less than an hour to more than a day" across systems (abstract,
	// confirmed). Their per-cause table gives, as we recall it, a median of
	// about an hour and a mean of about 6 hours over all failures; those two
	// numbers could not be confirmed from the text available to us. From
	// median 1 h and mean 6 h: mean/median = e^(σ²/2) ⇒ σ = √(2·ln 6) ≈ 1.89.
	DefaultRepairMedianHours = 1.0
	DefaultRepairSigma       = 1.89

	// DefaultRackRepairMedianHours and DefaultRackRepairSigma are the
	// lognormal time for a failed rack to come back: Dean's "1-6 hours to
	// get back", read as the central 90% interval: median √(1·6) ≈ 2.449 h
	// (the geometric midpoint), σ = ln 6 / (2·1.645) ≈ 0.545.
	DefaultRackRepairMedianHours = 2.449
	DefaultRackRepairSigma       = 0.545

	// DefaultRebootMinutes is how long a host reboot keeps its VMs down.
	// Azure's "Understand a system reboot for Azure VM" says that for a host
	// problem Azure first tries the least disruptive recovery, rebooting the
	// host, and that recovery (service healing included) "is usually
	// completed within 15 minutes". A separate figure for the reboot alone
	// is not published there, so we take the same 15 minutes as the upper
	// end of a reboot.
	DefaultRebootMinutes = 15.0

	// DefaultHealMinutes is the healing delay: how long a VM of a hard-failed
	// machine is down before it runs again elsewhere. Same Azure article:
	// service healing "will automatically relocate all VMs on the faulty host
	// to another healthy one. This process is usually completed within 15
	// minutes".
	DefaultHealMinutes = 15.0

	// DefaultRepair is the repair-time family (Schroeder & Gibson: lognormal).
	DefaultRepair = LogNormal
	// DefaultHeal is the healing scope: Azure heals "to a healthy physical
	// machine in the same data center" ("Understand VM reboots –
	// maintenance vs. downtime"); we start in the failed machine's cluster.
	DefaultHeal = HealCluster
)

// MaxAFR bounds machine-afr and rack-afr: 365 failures per machine-year is
// one a day, a machine that is broken rather than failing; a larger rate is
// a unit mistake (per day, per cent) and would draw millions of outages.
const MaxAFR = 365.0

// MaxSigma bounds the log-sigmas: at σ = 5 the central 95% of repair times
// already spans a factor e^9.8 ≈ 18,000 each way of the median (the
// default is 1.89); a far larger σ is a mistake, and one large enough makes
// draws underflow to zero-length outages.
const MaxSigma = 5.0

// Dist is a repair-time distribution family.
type Dist uint8

const (
	// LogNormal: median·e^(σ·Z), Z standard normal.
	LogNormal Dist = iota
	// Exponential with the given median (mean = median / ln 2); σ unused.
	Exponential
	// Fixed: always the median; σ unused.
	Fixed
)

var distNames = [...]string{LogNormal: "lognormal", Exponential: "exponential", Fixed: "fixed"}

func (d Dist) String() string {
	if int(d) < len(distNames) {
		return distNames[d]
	}
	return "dist(" + strconv.Itoa(int(d)) + ")"
}

// HealScope is where a hard-failed machine's VMs may be healed to.
type HealScope uint8

const (
	// HealCluster heals only within the failed machine's cluster.
	HealCluster HealScope = iota
	// HealZone heals within the cluster first, then anywhere in the zone.
	HealZone
)

var scopeNames = [...]string{HealCluster: "cluster", HealZone: "zone"}

func (s HealScope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "scope(" + strconv.Itoa(int(s)) + ")"
}

// Model is a failure model: independent Poisson processes of machine and
// rack failures, each machine failure a reboot with probability RebootShare
// and else a hard failure with a drawn repair time.
type Model struct {
	// MachineAFR is machine failures per machine-year (machine-afr).
	MachineAFR float64
	// RackAFR is rack failures per rack-year (rack-afr).
	RackAFR float64
	// RebootShare is the share of machine failures that are host reboots
	// rather than hardware failures (reboot-share).
	RebootShare float64
	// Repair is the repair-time family of hard machine failures and of
	// rack failures (repair).
	Repair Dist
	// RepairMedianH and RepairSigma are a hard machine failure's median
	// repair time in hours and its log-sigma (repair-median-h,
	// repair-sigma).
	RepairMedianH, RepairSigma float64
	// RackRepairMedianH and RackRepairSigma are the same for a failed rack
	// (rack-repair-median-h, rack-repair-sigma).
	RackRepairMedianH, RackRepairSigma float64
	// RebootMin is the minutes a host reboot keeps its VMs down
	// (reboot-min).
	RebootMin float64
	// HealMin is the healing delay: the minutes a VM of a hard-failed
	// machine is down before it runs again elsewhere (heal-min).
	HealMin float64
	// Heal is where healed VMs may go (heal).
	Heal HealScope
}

// DefaultModel is the model `default` names.
func DefaultModel() Model {
	return Model{
		MachineAFR:        DefaultMachineAFR,
		RackAFR:           DefaultRackAFR,
		RebootShare:       DefaultRebootShare,
		Repair:            DefaultRepair,
		RepairMedianH:     DefaultRepairMedianHours,
		RepairSigma:       DefaultRepairSigma,
		RackRepairMedianH: DefaultRackRepairMedianHours,
		RackRepairSigma:   DefaultRackRepairSigma,
		RebootMin:         DefaultRebootMinutes,
		HealMin:           DefaultHealMinutes,
		Heal:              DefaultHeal,
	}
}

// RebootSeconds is the outage of a host reboot in seconds.
func (m Model) RebootSeconds() float64 { return m.RebootMin * 60 }

// HealSeconds is the healing delay in seconds.
func (m Model) HealSeconds() float64 { return m.HealMin * 60 }

// SpecHelp documents the failure-model spec for a CLI's --help.
const SpecHelp = `Failure model: none (off, the default), default, or key=value overrides of
default separated by commas, e.g. machine-afr=2,rack-afr=0.5,heal=zone.
  machine-afr=N           machine failures per machine-year (default 0.556: Dean, ~1,000 in 1,800 machines)
  rack-afr=N              rack (fault-domain) failures per rack-year (default 0.444: Dean, ~20 in 45 racks)
  reboot-share=P          share of machine failures that are host reboots, in [0,1]; the rest are
                          hardware failures whose VMs are healed (default 0.9: Ford et al. OSDI 2010)
  repair=lognormal|exponential|fixed
                          repair-time family of hardware and rack failures (default lognormal)
  repair-median-h=H       median hours to repair a hardware failure, > 0 (default 1)
  repair-sigma=S          log-sigma of the lognormal repair time, in [0,5] (default 1.89)
  rack-repair-median-h=H  median hours for a failed rack to come back, > 0 (default 2.449)
  rack-repair-sigma=S     log-sigma of the rack repair time, in [0,5] (default 0.545)
  reboot-min=M            minutes a host reboot keeps its VMs down, > 0 (default 15)
  heal-min=M              minutes a healed VM is down before it runs elsewhere, >= 0 (default 15)
  heal=cluster|zone       heal in the failed machine's cluster only, or then anywhere in the zone
                          (default cluster)
Rates are per 365-day year; a year of trace time is 31,536,000 s.`

// modelKeys are the spec's keys in SpecHelp's order.
var modelKeys = []struct {
	name string
	set  func(m *Model, v string) error
}{
	{"machine-afr", func(m *Model, v string) error { return parseNum(v, &m.MachineAFR) }},
	{"rack-afr", func(m *Model, v string) error { return parseNum(v, &m.RackAFR) }},
	{"reboot-share", func(m *Model, v string) error { return parseNum(v, &m.RebootShare) }},
	{"repair", func(m *Model, v string) error {
		for d, n := range distNames {
			if v == n {
				m.Repair = Dist(d)
				return nil
			}
		}
		return fmt.Errorf("%q: want lognormal, exponential or fixed", v)
	}},
	{"repair-median-h", func(m *Model, v string) error { return parseNum(v, &m.RepairMedianH) }},
	{"repair-sigma", func(m *Model, v string) error { return parseNum(v, &m.RepairSigma) }},
	{"rack-repair-median-h", func(m *Model, v string) error { return parseNum(v, &m.RackRepairMedianH) }},
	{"rack-repair-sigma", func(m *Model, v string) error { return parseNum(v, &m.RackRepairSigma) }},
	{"reboot-min", func(m *Model, v string) error { return parseNum(v, &m.RebootMin) }},
	{"heal-min", func(m *Model, v string) error { return parseNum(v, &m.HealMin) }},
	{"heal", func(m *Model, v string) error {
		for s, n := range scopeNames {
			if v == n {
				m.Heal = HealScope(s)
				return nil
			}
		}
		return fmt.Errorf("%q: want cluster or zone", v)
	}},
}

// parseNum parses a finite number; NaN and ±Inf are refused here, ranges
// by Validate.
func parseNum(v string, dst *float64) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%q is not a finite number", v)
	}
	*dst = x
	return nil
}

// ParseModel parses a failure-model spec: "none" or "" (off: on is false),
// "default" (DefaultModel), or comma-separated key=value overrides applied
// on top of DefaultModel (see SpecHelp). An unknown or repeated key, a value
// that is not a finite number, or a value out of range (Validate) is a
// one-line error naming the key.
func ParseModel(spec string) (m Model, on bool, err error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "", "none":
		return Model{}, false, nil
	case "default":
		return DefaultModel(), true, nil
	}
	m = DefaultModel()
	seen := map[string]bool{}
	for _, tok := range strings.Split(spec, ",") {
		tok = strings.TrimSpace(tok)
		k, v, ok := strings.Cut(tok, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return Model{}, false, fmt.Errorf("%w: %q is not key=value (or use none, default)", ErrBadModel, tok)
		}
		i := modelKeyIndex(k)
		if i < 0 {
			return Model{}, false, fmt.Errorf("%w: unknown key %q (keys: %s)", ErrBadModel, k, strings.Join(modelKeyNames(), ", "))
		}
		if seen[k] {
			return Model{}, false, fmt.Errorf("%w: key %s given twice", ErrBadModel, k)
		}
		seen[k] = true
		if err := modelKeys[i].set(&m, v); err != nil {
			return Model{}, false, fmt.Errorf("%w: %s: %v", ErrBadModel, k, err)
		}
	}
	if err := m.Validate(); err != nil {
		return Model{}, false, err
	}
	return m, true, nil
}

func modelKeyIndex(k string) int {
	for i, mk := range modelKeys {
		if mk.name == k {
			return i
		}
	}
	return -1
}

func modelKeyNames() []string {
	out := make([]string, len(modelKeys))
	for i, mk := range modelKeys {
		out[i] = mk.name
	}
	return out
}

// Validate checks every field's range and names the spec key of the first
// one out of range: rates finite in [0, MaxAFR], the reboot share in [0,1],
// repair medians and the reboot time finite and > 0, sigmas in
// [0, MaxSigma], the healing delay finite and ≥ 0, and a known family and scope.
func (m Model) Validate() error {
	bad := func(key string, v float64, want string) error {
		return fmt.Errorf("%w: %s = %v: want %s", ErrBadModel, key, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !finite(m.MachineAFR) || m.MachineAFR < 0 || m.MachineAFR > MaxAFR:
		return bad("machine-afr", m.MachineAFR, fmt.Sprintf("failures per machine-year in [0, %g]", MaxAFR))
	case !finite(m.RackAFR) || m.RackAFR < 0 || m.RackAFR > MaxAFR:
		return bad("rack-afr", m.RackAFR, fmt.Sprintf("failures per rack-year in [0, %g]", MaxAFR))
	case !finite(m.RebootShare) || m.RebootShare < 0 || m.RebootShare > 1:
		return bad("reboot-share", m.RebootShare, "a share in [0, 1]")
	case int(m.Repair) >= len(distNames):
		return fmt.Errorf("%w: repair = %v: want lognormal, exponential or fixed", ErrBadModel, m.Repair)
	case !finite(m.RepairMedianH) || m.RepairMedianH <= 0:
		return bad("repair-median-h", m.RepairMedianH, "hours > 0")
	case !finite(m.RepairSigma) || m.RepairSigma < 0 || m.RepairSigma > MaxSigma:
		return bad("repair-sigma", m.RepairSigma, fmt.Sprintf("a log-sigma in [0, %g]", MaxSigma))
	case !finite(m.RackRepairMedianH) || m.RackRepairMedianH <= 0:
		return bad("rack-repair-median-h", m.RackRepairMedianH, "hours > 0")
	case !finite(m.RackRepairSigma) || m.RackRepairSigma < 0 || m.RackRepairSigma > MaxSigma:
		return bad("rack-repair-sigma", m.RackRepairSigma, fmt.Sprintf("a log-sigma in [0, %g]", MaxSigma))
	case !finite(m.RebootMin) || m.RebootMin <= 0:
		return bad("reboot-min", m.RebootMin, "minutes > 0")
	case !finite(m.HealMin) || m.HealMin < 0:
		return bad("heal-min", m.HealMin, "minutes ≥ 0")
	case int(m.Heal) >= len(scopeNames):
		return fmt.Errorf("%w: heal = %v: want cluster or zone", ErrBadModel, m.Heal)
	}
	return nil
}
