package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
)

// interval is the range of values a numeric flag accepts; an open end
// excludes its bound, an infinite bound means no limit on that side.
type interval struct {
	lo, hi         float64
	openLo, openHi bool
}

var (
	positive    = interval{lo: 0, hi: math.Inf(1), openLo: true, openHi: true}
	nonNegative = interval{lo: 0, hi: math.Inf(1), openHi: true}
	unitOpenLo  = interval{lo: 0, hi: 1, openLo: true} // 0 < x ≤ 1
	unit        = interval{lo: 0, hi: 1}               // 0 ≤ x ≤ 1
)

// contains reports whether v lies in the interval (never NaN).
func (r interval) contains(v float64) bool {
	if math.IsNaN(v) || v < r.lo || v > r.hi {
		return false
	}
	return !(r.openLo && v == r.lo) && !(r.openHi && v == r.hi)
}

// describe writes the interval for a flag name, e.g. "0 < theta ≤ 1" or
// "nodes > 0, finite".
func (r interval) describe(name string) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	le := func(open bool) string {
		if open {
			return " < "
		}
		return " ≤ "
	}
	ge := func(open bool) string {
		if open {
			return " > "
		}
		return " ≥ "
	}
	switch loInf, hiInf := math.IsInf(r.lo, -1), math.IsInf(r.hi, 1); {
	case loInf && hiInf:
		return name + " finite"
	case hiInf:
		return name + ge(r.openLo) + num(r.lo) + ", finite"
	case loInf:
		return name + le(r.openHi) + num(r.hi) + ", finite"
	}
	return num(r.lo) + le(r.openLo) + name + le(r.openHi) + num(r.hi)
}

// check returns the one-line error of a flag value outside the interval.
func (r interval) check(name string, v float64) error {
	if r.contains(v) {
		return nil
	}
	return fmt.Errorf("--%s %v: want %s", name, v, r.describe(name))
}

// floatFlag is a Float64Flag that refuses NaN and any value outside r when
// the flags are parsed. Its default must lie in r (TestFlagDefaultsValid).
func floatFlag(name string, value float64, r interval, usage string) *cli.Float64Flag {
	return &cli.Float64Flag{Name: name, Value: value, Usage: usage + " (" + r.describe(name) + ")",
		Action: func(_ *cli.Context, v float64) error { return r.check(name, v) }}
}

// intFlag is an IntFlag that refuses values below lo or above hi (hi 0:
// no upper limit) when the flags are parsed.
func intFlag(name string, value, lo, hi int, usage string) *cli.IntFlag {
	want := fmt.Sprintf("%s ≥ %d", name, lo)
	if hi > 0 {
		want = fmt.Sprintf("%d ≤ %s ≤ %d", lo, name, hi)
	}
	return &cli.IntFlag{Name: name, Value: value, Usage: usage + " (" + want + ")",
		Action: func(_ *cli.Context, v int) error {
			if v < lo || (hi > 0 && v > hi) {
				return fmt.Errorf("--%s %d: want %s", name, v, want)
			}
			return nil
		}}
}

// durationFlag is a DurationFlag that refuses negative durations.
func durationFlag(name string, value time.Duration, usage string) *cli.DurationFlag {
	return &cli.DurationFlag{Name: name, Value: value, Usage: usage,
		Action: func(_ *cli.Context, v time.Duration) error {
			if v < 0 {
				return fmt.Errorf("--%s %v: want a duration ≥ 0", name, v)
			}
			return nil
		}}
}

// timeFlag reads a time flag (parseTime: seconds, or a number with s, m,
// h or d; NaN and infinities are refused, not taken for the default def).
func timeFlag(c *cli.Context, name string, def float64) (float64, error) {
	v, err := parseTime(c.String(name), def)
	if err != nil {
		return 0, fmt.Errorf("--%s: %w", name, err)
	}
	return v, nil
}

// window reads --from and --to (defaults: the whole trace) and refuses a
// window that ends before it starts.
func window(c *cli.Context) (from, to float64, err error) {
	if from, err = timeFlag(c, "from", math.Inf(-1)); err != nil {
		return 0, 0, err
	}
	if to, err = timeFlag(c, "to", math.Inf(1)); err != nil {
		return 0, 0, err
	}
	if !(to > from) {
		given := func(name, def string) string {
			if c.IsSet(name) {
				return c.String(name)
			}
			return def
		}
		return 0, 0, fmt.Errorf("--from %s --to %s: the window must end after it starts",
			given("from", "(the trace's start)"), given("to", "(the trace's end)"))
	}
	return from, to, nil
}

// onlyWith refuses flag when it is set without its condition: a flag that
// would be accepted and ignored.
func onlyWith(c *cli.Context, flag string, cond bool, needs string) error {
	if c.IsSet(flag) && !cond {
		return fmt.Errorf("--%s applies only %s", flag, needs)
	}
	return nil
}
