package analysis

import (
	"fmt"
	"reflect"
	"strings"

	"placelab/analysis/replay"
)

// Figures lists a study's result as run_metric rows (t = 0) for
// WriteFigures, from the result's tagged fields, in field order, so that a
// figure is named once, beside the field it reports:
//
//	VMs int `figure:"vms"`                      one row, the field's value
//	OK  bool `figure:"converged"`               1 or 0
//	B   [4]int `figure:"true_bucket_%d"`        one row per element, named by its index
//	H   Metrics `figure:",inline"`              the struct's own tagged fields
//	P   *Metrics `figure:"baseline_,inline"`    the same, each name prefixed (nothing when nil)
//	Q   Metrics `figure:"random_,inline,only=best_sc within_5pct"` only the names listed
//
// Fields without a figure tag are not figures (names, settings, timings
// of the run itself). v is a struct or a pointer to one; a field of any
// other kind with a figure tag panics, as a mistake in the result's type.
func Figures(v any) []replay.MetricRow {
	var out []replay.MetricRow
	figuresOf(reflect.ValueOf(v), "", nil, &out)
	return out
}

func figuresOf(v reflect.Value, prefix string, only map[string]bool, out *[]replay.MetricRow) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("figure")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		name, inline := parts[0], false
		var sub map[string]bool
		for _, p := range parts[1:] {
			switch {
			case p == "inline":
				inline = true
			case strings.HasPrefix(p, "only="):
				sub = map[string]bool{}
				for _, n := range strings.Fields(strings.TrimPrefix(p, "only=")) {
					sub[n] = true
				}
			default:
				panic(fmt.Sprintf("analysis: figure tag %q of %s.%s: unknown option %q", tag, t.Name(), f.Name, p))
			}
		}
		fv := v.Field(i)
		if inline {
			figuresOf(fv, prefix+name, sub, out)
			continue
		}
		if only != nil && !only[name] {
			continue
		}
		switch fv.Kind() {
		case reflect.Array, reflect.Slice:
			for k := 0; k < fv.Len(); k++ {
				*out = append(*out, replay.MetricRow{Metric: prefix + fmt.Sprintf(name, k), Value: number(fv.Index(k), t, f)})
			}
		default:
			*out = append(*out, replay.MetricRow{Metric: prefix + name, Value: number(fv, t, f)})
		}
	}
}

func number(v reflect.Value, t reflect.Type, f reflect.StructField) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Bool:
		return BoolNum(v.Bool())
	}
	panic(fmt.Sprintf("analysis: figure %s.%s is a %s, not a number", t.Name(), f.Name, v.Kind()))
}
