package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-echarts/go-echarts/v2/opts"
)

// ErrMixedUnits is returned (wrapped, naming the chart's axis and series)
// when a chart puts series of different units on one axis, or names a
// value axis without its unit.
var ErrMixedUnits = errors.New("report: one unit per chart axis")

// The units placelab's charts draw in. A share is a fraction of 1 (a rate,
// an accuracy, a utilization); "%" is the same times 100.
const (
	UnitPct    = "%"
	UnitShare  = "share"
	UnitMicros = "µs"
	UnitSecs   = "s"
	UnitHours  = "h"
	UnitMB     = "MB"
	UnitPerSec = "per s"
	UnitPerMin = "per min"
	// UnitDollarsPerHour is a fleet's price (placelab plan).
	UnitDollarsPerHour = "$ per hour"
)

// unitSuffixes give a metric's unit from its name's suffix (placelab's
// columns and figures say their unit this way: pd_pct, latency_p99_us,
// conflicts_p99_per_min). Longer suffixes come first.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_cost_per_hour", UnitDollarsPerHour},
	{"_per_min", UnitPerMin},
	{"_per_s", UnitPerSec},
	{"_pct", UnitPct},
	{"_us", UnitMicros},
	{"_hours", UnitHours},
	{"_mb", UnitMB},
	{"_s", UnitSecs},
	{"_rate", UnitShare},
	{"_share", UnitShare},
	{"_accuracy", UnitShare},
}

// statSuffixes name a statistic of a metric over seeds or samples, in the
// metric's own unit.
var statSuffixes = []string{"_median", "_mean", "_min", "_max"}

// metricUnits are the units of the metrics whose names carry no suffix:
// counts (of what they count) and shares.
var metricUnits = map[string]string{
	"accepted": "VMs", "rejected": "VMs", "failures": "VMs", // oversubscription's failures: VMs not scheduled
	"readings_over_100": "readings", "oversubscribed_readings": "readings",
	"violations": "violations", "views_with_rows": "views", "datasets": "datasets",
	"nodes_with_pods": "nodes", "lb_nodes": "nodes", "ub_nodes": "nodes", "nodes_in_use": "nodes",
	"accuracy": UnitShare, "p_theta": UnitShare, "r_theta": UnitShare, "cfr": UnitShare,
	"utilization_mean": UnitShare, "mean_normalized_perf": UnitShare,
	"cost_per_hour": UnitDollarsPerHour,
}

// MetricUnit is the unit of a metric (a column or an experiment's figure,
// such as pd_pct or "violations policy=bestfit": the first word names the
// metric), and whether placelab knows it.
func MetricUnit(name string) (string, bool) {
	m, _, _ := strings.Cut(strings.TrimSpace(name), " ")
	if u, ok := unitOf(m); ok {
		return u, true
	}
	for _, st := range statSuffixes { // qos_share_median is in qos_share's unit
		if t, ok := strings.CutSuffix(m, st); ok && t != "" {
			return unitOf(t)
		}
	}
	return "", false
}

// unitOf is the unit of metric m by name, then by suffix.
func unitOf(m string) (string, bool) {
	if u, ok := metricUnits[m]; ok {
		return u, true
	}
	for _, s := range unitSuffixes {
		if strings.HasSuffix(m, s.suffix) && len(m) > len(s.suffix) {
			return s.unit, true
		}
	}
	return "", false
}

// AxisUnit is the unit an axis name states: its trailing parenthesis, as
// in "packing density (%)" or "utilization (share of cores allocated)".
func AxisUnit(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if !strings.HasSuffix(name, ")") {
		return "", false
	}
	i := strings.LastIndex(name, "(")
	if i < 0 {
		return "", false
	}
	u := strings.TrimSpace(name[i+1 : len(name)-1])
	return u, u != ""
}

// AxisName is the name of an axis of metrics in unit: "what (unit)".
func AxisName(what, unit string) string { return what + " (" + unit + ")" }

// unitNoun is what an axis in unit measures, for its name.
func unitNoun(unit string) string {
	switch unit {
	case UnitPct:
		return "percentage"
	case UnitShare:
		return "fraction"
	case UnitMicros, UnitSecs, UnitHours:
		return "time"
	case UnitMB:
		return "memory"
	case UnitPerSec, UnitPerMin:
		return "rate"
	}
	return "count"
}

// UnitAxes gives each unit among metrics (MetricUnit) a y axis of its
// own, in order of first appearance — the first on the left, the second on
// the right — named "what (unit)", and returns each metric's axis index.
// Keep a chart to two units: ECharts draws a third axis over the second. A
// metric of unknown unit gets an axis named after it alone, which
// CheckUnits refuses.
func UnitAxes(metrics []string) ([]opts.YAxis, map[string]int) {
	var axes []opts.YAxis
	byUnit := map[string]int{}
	index := map[string]int{}
	for _, m := range metrics {
		u, ok := MetricUnit(m)
		key := u
		if !ok {
			key = "?" + m
		}
		i, seen := byUnit[key]
		if !seen {
			i = len(axes)
			byUnit[key] = i
			label := u
			if u == UnitShare {
				label = "share of 1" // "fraction (share of 1)", not "share (share)"
			}
			a := opts.YAxis{Type: "value", Name: AxisName(unitNoun(u), label)}
			if !ok {
				a.Name = m
			}
			if i > 0 {
				a.Position, a.AlignTicks = "right", opts.Bool(true)
			}
			axes = append(axes, a)
		}
		index[m] = i
	}
	return axes, index
}

// sameUnit reports whether a series in unit may sit on an axis whose name
// states axisUnit: the same unit, or the unit said more precisely ("share
// of scale-out VMs" is a share, "% of VMs" is in %).
func sameUnit(unit, axisUnit string) bool {
	return axisUnit == unit || strings.HasPrefix(axisUnit, unit+" ")
}

// CheckUnits checks that a chart draws one unit per axis: every value axis
// that series are drawn against names its unit ("what (unit)"), and every
// series whose name is a metric of known unit (MetricUnit) is drawn
// against an axis in that unit. A series named otherwise (a dataset, a
// run, a policy) plots its axis's measure. Category axes and charts
// without axes (a heat map's colour scale) are not checked.
func CheckUnits(ch Chart) error {
	b, err := json.Marshal(ch.JSON())
	if err != nil {
		return err
	}
	var c struct {
		XAxis  []chartAxis `json:"xAxis"`
		YAxis  []chartAxis `json:"yAxis"`
		Series []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			XAxisIndex int    `json:"xAxisIndex"`
			YAxisIndex int    `json:"yAxisIndex"`
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	var problems []string
	checkAxis := func(kind string, axes []chartAxis, i int, series, unit string, known bool) {
		if i >= len(axes) {
			problems = append(problems, fmt.Sprintf("series %q is drawn against %s axis %d, which the chart lacks", series, kind, i))
			return
		}
		a := axes[i]
		if !a.value(kind) {
			return
		}
		au, ok := AxisUnit(a.Name)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s axis %d %q names no unit (want \"what (unit)\")", kind, i, a.Name))
		case known && !sameUnit(unit, au):
			problems = append(problems, fmt.Sprintf("series %q is in %s, its %s axis %q in %s", series, unit, kind, a.Name, au))
		}
	}
	for _, s := range c.Series {
		switch s.Type {
		case "bar", "line", "scatter", "effectScatter":
		default:
			continue
		}
		u, known := MetricUnit(s.Name)
		checkAxis("y", c.YAxis, s.YAxisIndex, s.Name, u, known)
		checkAxis("x", c.XAxis, s.XAxisIndex, s.Name, "", false)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrMixedUnits, strings.Join(dedup(problems), "; "))
	}
	return nil
}

type chartAxis struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// value reports whether the axis is a value axis (ECharts' default for a
// y axis; an x axis is one only when it says so).
func (a chartAxis) value(kind string) bool {
	if kind == "y" {
		return a.Type == "" || a.Type == "value" || a.Type == "log"
	}
	return a.Type == "value" || a.Type == "log"
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
