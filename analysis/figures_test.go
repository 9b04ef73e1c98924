package analysis_test

import (
	"reflect"
	"testing"

	"placelab/analysis"
	"placelab/analysis/replay"
)

type figInner struct {
	A   int     `figure:"a"`
	B   float64 `figure:"b"`
	Not string
}

type figDeep struct {
	Inner figInner `figure:"in_,inline"`
}

type figOuter struct {
	Name     string
	N        int32 `figure:"n"`
	OK       bool  `figure:"ok"`
	figInner `figure:",inline"`
	Base     figInner  `figure:"base_,inline,only=b"`
	Ceiling  *figInner `figure:"ceiling_,inline"`
	Buckets  [3]int    `figure:"bucket_%d"`
	Deep     figDeep   `figure:"deep_,inline"`
	Seconds  float64
}

// TestFiguresFromTags: a figure per tagged field in field order, inline
// structs with their prefix (only the names listed where only= says so),
// prefixes joined through nested inline structs, nothing for a nil pointer, one row per array element, bools as 0/1, and
// untagged fields left out.
func TestFiguresFromTags(t *testing.T) {
	v := figOuter{Name: "x", N: 7, OK: true, figInner: figInner{A: 1, B: 2.5, Not: "no"}, Base: figInner{A: 9, B: 3},
		Buckets: [3]int{4, 5, 6}, Seconds: 99}
	f := func(n string, x float64) replay.MetricRow { return replay.MetricRow{Metric: n, Value: x} }
	want := []replay.MetricRow{f("n", 7), f("ok", 1), f("a", 1), f("b", 2.5), f("base_b", 3),
		f("bucket_0", 4), f("bucket_1", 5), f("bucket_2", 6), f("deep_in_a", 0), f("deep_in_b", 0)}
	if got := analysis.Figures(&v); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	v.Ceiling = &figInner{A: 2, B: 1}
	got := analysis.Figures(v)
	if n := len(got); n != len(want)+2 || got[5] != f("ceiling_a", 2) || got[6] != f("ceiling_b", 1) {
		t.Fatalf("with a ceiling: %v", got)
	}
}
