package outage

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"placelab/optimizer"
)

// Defaults of planned maintenance (`--maintenance default`).
const (
	// DefaultUDMinutes is how long each update domain is down in a round.
	// Azure's availability-set documentation ("Manage the availability of
	// virtual machines"): "only one update domain is rebooted at a time. A
	// rebooted update domain is given 30 minutes to recover before
	// maintenance is initiated on a different update domain." The allocator
	// slides: "Host OS updates reboot update domains".
	DefaultUDMinutes = 30.0

	// DefaultMaintenanceEveryDays is the time between maintenance rounds.
	// Azure publishes no cadence of reboot-requiring host updates; its
	// "Maintenance for virtual machines in Azure" page gives a self-service
	// window for them that "is typically 30 days" (newer revisions: 35), so
	// we assume one round per 30-day window. An assumption, not a measured
	// figure: override it (every=) when you know your fleet's cadence.
	DefaultMaintenanceEveryDays = 30.0
)

// Maintenance is planned host OS maintenance: every Every seconds a round
// updates the zone's update domains one at a time, UDSeconds each.
type Maintenance struct {
	Every, UDSeconds float64
}

// DefaultMaintenance is the maintenance `default` names.
func DefaultMaintenance() Maintenance {
	return Maintenance{Every: DefaultMaintenanceEveryDays * 86400, UDSeconds: DefaultUDMinutes * 60}
}

// MaintenanceSpecHelp documents the maintenance spec for a CLI's --help.
const MaintenanceSpecHelp = `Planned maintenance: none (off, the default), default, or key=value overrides
of default separated by commas, e.g. every=30d,ud-minutes=30.
  every=D        time between rounds, a number with a unit s, m, h or d (default 30d: one round
                 per Azure's 30-day self-service maintenance window, an assumption)
  ud-minutes=M   minutes each update domain is down, > 0 (default 30: Azure updates one update
                 domain at a time and gives it 30 minutes to recover)
A round updates the zone's update domains one at a time in increasing order; it must fit in every.`

// ParseMaintenance parses a maintenance spec: "none" or "" (off), "default"
// (DefaultMaintenance), or comma-separated overrides of the default:
// every=<number><s|m|h|d> and ud-minutes=<number>. An unknown or repeated
// key or a bad value is a one-line error naming the key.
func ParseMaintenance(spec string) (Maintenance, bool, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "", "none":
		return Maintenance{}, false, nil
	case "default":
		return DefaultMaintenance(), true, nil
	}
	mt := DefaultMaintenance()
	seen := map[string]bool{}
	for _, tok := range strings.Split(spec, ",") {
		tok = strings.TrimSpace(tok)
		k, v, ok := strings.Cut(tok, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return Maintenance{}, false, fmt.Errorf("%w: %q is not key=value (or use none, default)", ErrBadMaintenance, tok)
		}
		if seen[k] {
			return Maintenance{}, false, fmt.Errorf("%w: key %s given twice", ErrBadMaintenance, k)
		}
		seen[k] = true
		switch k {
		case "every":
			d, err := parseDuration(v)
			if err != nil {
				return Maintenance{}, false, fmt.Errorf("%w: every: %v", ErrBadMaintenance, err)
			}
			mt.Every = d
		case "ud-minutes":
			if err := parseNum(v, &mt.UDSeconds); err != nil {
				return Maintenance{}, false, fmt.Errorf("%w: ud-minutes: %v", ErrBadMaintenance, err)
			}
			mt.UDSeconds *= 60
		default:
			return Maintenance{}, false, fmt.Errorf("%w: unknown key %q (keys: every, ud-minutes)", ErrBadMaintenance, k)
		}
	}
	if err := mt.Validate(); err != nil {
		return Maintenance{}, false, err
	}
	return mt, true, nil
}

// parseDuration parses a number with a unit suffix s, m, h or d into seconds.
func parseDuration(v string) (float64, error) {
	units := map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
	if v == "" {
		return 0, fmt.Errorf("empty: want a number with a unit s, m, h or d")
	}
	u, ok := units[v[len(v)-1]]
	if !ok {
		return 0, fmt.Errorf("%q has no unit: want a number with a unit s, m, h or d (30d)", v)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v[:len(v)-1]), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number with a unit s, m, h or d", v)
	}
	return x * u, nil
}

// Validate checks that Every and UDSeconds are finite and > 0.
func (mt Maintenance) Validate() error {
	switch {
	case !(mt.Every > 0) || math.IsInf(mt.Every, 1):
		return fmt.Errorf("%w: every = %v s: want a finite duration > 0", ErrBadMaintenance, mt.Every)
	case !(mt.UDSeconds > 0) || math.IsInf(mt.UDSeconds, 1):
		return fmt.Errorf("%w: ud-minutes = %v: want a finite number of minutes > 0", ErrBadMaintenance, mt.UDSeconds/60)
	}
	return nil
}

// MaxMaintenanceOutages bounds the outages one call of Windows makes (rounds
// × healthy machines): ten million is a year of monthly rounds over 800,000
// machines; more is a window or a cadence mistake.
const MaxMaintenanceOutages = 10_000_000

// Windows lays out the maintenance rounds over [from, to): rounds start at
// from+Every, from+2·Every, … while < to. In a round the inventory's
// distinct update domains (Machine.UpdateDomain, numbered zone-wide) of
// machines Healthy in the inventory are updated one at a time in increasing
// order, UDSeconds each: domain k of a round (0-based) is down over
// [round + k·UDSeconds, round + (k+1)·UDSeconds), one Planned outage per
// healthy machine of the domain. Results are sorted by (Start, Machine).
//
// It is an error (ErrBadMaintenance) if the maintenance is invalid, the
// window is not finite, a round (domains × UDSeconds) does not fit in
// Every, or the window would need more than MaxMaintenanceOutages outages.
func (mt Maintenance) Windows(inv *optimizer.Inventory, from, to float64) ([]Outage, error) {
	if err := mt.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(from) || math.IsInf(from, 0) || math.IsNaN(to) || math.IsInf(to, 0) {
		return nil, fmt.Errorf("%w: window [%v, %v) s: maintenance needs a finite window", ErrBadMaintenance, from, to)
	}
	byUD := map[int16][]int32{}
	healthy := 0
	for i, m := range inv.Machines {
		if m.Healthy {
			byUD[m.UpdateDomain] = append(byUD[m.UpdateDomain], int32(i))
			healthy++
		}
	}
	uds := make([]int16, 0, len(byUD))
	for ud := range byUD {
		uds = append(uds, ud)
	}
	slices.Sort(uds)
	if round := float64(len(uds)) * mt.UDSeconds; round > mt.Every {
		return nil, fmt.Errorf("%w: a round of %d update domains × %g min = %g h does not fit in every = %g h",
			ErrBadMaintenance, len(uds), mt.UDSeconds/60, round/3600, mt.Every/3600)
	}
	if to <= from || healthy == 0 {
		return nil, nil
	}
	rounds := math.Ceil((to-from)/mt.Every) - 1 // rounds at from + k·Every < to, k ≥ 1
	if rounds*float64(healthy) > MaxMaintenanceOutages {
		return nil, fmt.Errorf("%w: %.3g rounds × %d machines is more than %d outages: raise every or bound the window",
			ErrBadMaintenance, rounds, healthy, MaxMaintenanceOutages)
	}
	var out []Outage
	for k := 1; ; k++ {
		start := from + float64(k)*mt.Every
		if start >= to {
			break
		}
		for j, ud := range uds {
			t := start + float64(j)*mt.UDSeconds
			for _, id := range byUD[ud] {
				out = append(out, Outage{Start: t, Duration: mt.UDSeconds, Machine: id, Rack: -1, Kind: Planned})
			}
		}
	}
	sortOutages(out)
	return out, nil
}
