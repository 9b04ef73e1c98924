package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

func TestMetricUnit(t *testing.T) {
	for _, tc := range []struct{ name, unit string }{
		{"pd_pct", UnitPct},
		{"conflicts_p99_per_min", UnitPerMin},
		{"conflicts_p99_per_s", UnitPerSec},
		{"burst_span_s", UnitSecs},
		{"latency_p99_us", UnitMicros},
		{"memory_mb", UnitMB},
		{"heal_failure_rate", UnitShare},
		{"qos_share policy=paragon", UnitShare},
		{"violations policy=bestfit", "violations"},
		{"rejected", "VMs"},
		{"pd_pct (paper)", UnitPct},
		{"qos_share_median", UnitShare},
		{"usable_cores_median", ""},
		{"huawei-east-1", ""},
		{"run 3 protean (tight)", ""},
	} {
		u, ok := MetricUnit(tc.name)
		if u != tc.unit || ok != (tc.unit != "") {
			t.Errorf("MetricUnit(%q) = %q, %v; want %q", tc.name, u, ok, tc.unit)
		}
	}
}

// TestCheckUnits: a chart passes only with one unit per axis and every
// value axis naming its unit. The first case is issue 32's bug: notebook
// 02's "Packing density and rejections per setting" drew packing density
// (%) and rejected VMs as bars on one unnamed axis.
func TestCheckUnits(t *testing.T) {
	bar := func(yAxes []string, series ...[2]any) *charts.Bar {
		b := charts.NewBar()
		b.SetXAxis([]string{"protean", "bestfit"})
		if len(yAxes) > 0 {
			b.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: yAxes[0]}))
		}
		for _, y := range yAxes[min(1, len(yAxes)):] {
			b.ExtendYAxis(opts.YAxis{Name: y})
		}
		for _, s := range series {
			b.AddSeries(s[0].(string), []opts.BarData{{Value: 1}, {Value: 2}}, charts.WithBarChartOpts(opts.BarChart{YAxisIndex: s[1].(int)}))
		}
		return b
	}
	scatter := charts.NewScatter()
	scatter.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "hour"}), charts.WithYAxisOpts(opts.YAxis{Name: "arrivals (VMs)"}))
	scatter.AddSeries("synthetic", []opts.ScatterData{{Value: []float64{1, 2}}})
	heat := charts.NewHeatMap()
	heat.SetGlobalOptions(charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: []string{"a"}}), charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: []string{"a"}}))
	heat.AddSeries("spearman", []opts.HeatMapData{{Value: [3]any{0, 0, 1}}})
	for _, tc := range []struct {
		name  string
		chart Chart
		bad   string // a part of the error; "" when the chart is fine
	}{
		{"issue 32: density and rejections on one unnamed axis", bar(nil, [2]any{"packing density %", 0}, [2]any{"rejected VMs", 0}), `y axis 0 "" names no unit`},
		{"percent and VMs on one named axis", bar([]string{"packing density (%)"}, [2]any{"packing_density_pct", 0}, [2]any{"rejected", 0}), `series "rejected" is in VMs`},
		{"Table 5: percentages beside conflicts per minute", bar([]string{"(%)"}, [2]any{"pd_pct", 0}, [2]any{"conflicts_p99_per_min", 0}), "conflicts_p99_per_min"},
		{"a paper series in another unit", bar([]string{"(%)"}, [2]any{"pd_pct", 0}, [2]any{"memory_mb (paper)", 0}), "memory_mb (paper)"},
		{"a series on an axis the chart lacks", bar([]string{"(%)"}, [2]any{"pd_pct", 1}), "lacks"},
		{"a value x axis without its unit", scatter, `x axis 0 "hour" names no unit`},
		{"two units, two axes", bar([]string{"packing density (%)", "rejected (VMs)"}, [2]any{"packing_density_pct", 0}, [2]any{"rejected", 1}), ""},
		{"an axis unit said more precisely", bar([]string{"failure rate (share of VMs to heal)"}, [2]any{"heal_failure_rate", 0}, [2]any{"heal_failure_rate (paper)", 0}), ""},
		{"datasets plot their axis's measure", bar([]string{"share of VMs (%)"}, [2]any{"synthetic", 0}, [2]any{"huawei-east-1", 0}), ""},
		{"category axes are not checked", heat, ""},
	} {
		err := CheckUnits(tc.chart)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.bad != "" && err == nil:
			t.Errorf("%s: passed, want an error naming %q", tc.name, tc.bad)
		case tc.bad != "" && (!errors.Is(err, ErrMixedUnits) || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: %v, want ErrMixedUnits naming %q", tc.name, err, tc.bad)
		}
	}
}

// TestRenderRefusesMixedUnits: a page or a notebook fragment with a chart
// that mixes units is not written.
func TestRenderRefusesMixedUnits(t *testing.T) {
	b := charts.NewBar()
	b.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "density (%)"}))
	b.SetXAxis([]string{"a"}).AddSeries("pd_pct", []opts.BarData{{Value: 1}}).AddSeries("conflicts_p99_per_min", []opts.BarData{{Value: 2}})
	p := &Page{Title: "t", Sections: []Section{{Title: "mixed", Chart: b}}}
	if _, err := p.Render(); !errors.Is(err, ErrMixedUnits) {
		t.Errorf("Render: %v, want ErrMixedUnits", err)
	}
	if _, err := Fragment("mixed", b, nil, 0); !errors.Is(err, ErrMixedUnits) {
		t.Errorf("Fragment: %v, want ErrMixedUnits", err)
	}
}

// TestUnitAxes: one axis per unit in order of first appearance, named
// "what (unit)", the second on the right; a metric of unknown unit gets an
// axis CheckUnits refuses.
func TestUnitAxes(t *testing.T) {
	axes, index := UnitAxes([]string{"pd_pct", "conflicts_p99_per_min", "post_bestfit_pct", "heal_failure_rate"})
	var names []string
	for _, a := range axes {
		names = append(names, a.Name)
	}
	want := []string{"percentage (%)", "rate (per min)", "fraction (share of 1)"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("axes %q, want %q", names, want)
	}
	if index["pd_pct"] != 0 || index["post_bestfit_pct"] != 0 || index["conflicts_p99_per_min"] != 1 || index["heal_failure_rate"] != 2 {
		t.Errorf("axis per metric %v", index)
	}
	if axes[0].Position != "" || axes[1].Position != "right" {
		t.Errorf("positions %q, %q: want the first on the left, the second on the right", axes[0].Position, axes[1].Position)
	}
	for _, a := range axes {
		u, ok := AxisUnit(a.Name)
		if !ok || u == "" {
			t.Errorf("axis %q names no unit", a.Name)
		}
	}
	b := charts.NewBar()
	unknown, _ := UnitAxes([]string{"mystery"})
	b.SetGlobalOptions(charts.WithYAxisOpts(unknown[0]))
	b.SetXAxis([]string{"a"}).AddSeries("mystery", []opts.BarData{{Value: 1}})
	if err := CheckUnits(b); !errors.Is(err, ErrMixedUnits) {
		t.Errorf("a metric of unknown unit: %v, want ErrMixedUnits", err)
	}
}
