package overview

import (
	"encoding/json"
	"strings"
	"testing"

	"placelab/analysis/report"
	store "placelab/sql"
)

// TestOverviewChartsOneUnitPerAxis builds every chart of the overview page
// from a row or two and checks it with report.CheckUnits: one unit per
// axis, every value axis naming its unit. Issue 32: the oversubscription
// chart drew readings over 100% (readings) and scheduling failures (VMs)
// on one unnamed axis.
func TestOverviewChartsOneUnitPerAxis(t *testing.T) {
	rows := func(cols []string, vals ...[]any) *store.Result { return &store.Result{Columns: cols, Rows: vals} }
	for _, tc := range []struct {
		name  string
		chart report.Chart
	}{
		{"oversubscription", groupedBars(rows([]string{"arm", "run_id", "readings_over_100", "failures"}, []any{"naive", 1, 6.0, 2.0}),
			"arm", "run_id", []string{"readings_over_100", "failures"})},
		{"predictions", groupedBars(rows([]string{"metric", "predictor", "accuracy", "p_theta", "r_theta"}, []any{"lifetime", "xgb", 0.8, 0.7, 0.6}),
			"metric", "predictor", []string{"accuracy", "p_theta", "r_theta"})},
		{"paragon", groupedBars(rows([]string{"scenario", "policy", "qos_share", "mean_normalized_perf", "best_sc_accuracy", "within_5pct_accuracy"},
			[]any{"low", "paragon", 0.9, 0.95, 0.5, 0.6}), "scenario", "policy", []string{"qos_share", "mean_normalized_perf", "best_sc_accuracy", "within_5pct_accuracy"})},
		{"paragon over seeds", groupedBars(rows([]string{"scenario", "policy", "qos_share_median", "qos_share_min", "qos_share_max"},
			[]any{"low", "paragon", 0.9, 0.85, 0.95}), "scenario", "policy", []string{"qos_share_median", "qos_share_min", "qos_share_max"})},
		{"lifetime arms", groupedBars(rows([]string{"arm", "dataset", "oracle_gain_share_median", "best_oracle_gain_share_median"},
			[]any{"off", "s", nil, 0.0}, []any{"lava", "s", 0.7, 0.6}), "arm", "dataset", []string{"oracle_gain_share_median", "best_oracle_gain_share_median"})},
		{"cluster", clusterChart(rows([]string{"policy", "run_id", "nodes_with_pods", "lb_nodes", "ub_nodes"}, []any{"protean", 1, 9.0, 7.0, 8.0}))},
		{"fleet plans", fleetPlansChart(rows([]string{"run_id", "dataset", "cost_per_hour", "karpenter_cost_per_hour", "best_single_cost_per_hour", "current_cost_per_hour"},
			[]any{2, "cluster", 10.5, 14.0, nil, 20.0}))},
		{"violations", violationChart(rows([]string{"policy", "density", "violations"}, []any{"bestfit", 1.5, 3.0}))},
		{"type mix", typeMixChart(rows([]string{"dataset", "vm_type", "pct"}, []any{"s", "a", 60.0}, []any{"s", "b", 40.0}))},
		{"arrivals", arrivalsChart(rows([]string{"dataset", "hour", "arrivals"}, []any{"s", 0.0, 10.0}, []any{"s", 1.0, 12.0}))},
		{"density", densityChart(rows([]string{"run_id", "policy", "dataset", "hour", "packing_density"}, []any{1, "protean", "s", 0.0, 0.8}))},
		{"LP interval", lpDensityChart(rows([]string{"run_id", "hour", "online_density_pct", "lb_density_pct", "ub_density_pct"},
			[]any{1.0, 0.0, 80.0, 82.0, 90.0}), 1)},
	} {
		if err := report.CheckUnits(tc.chart); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Two units, two axes: readings on the left, VMs on the right.
	_, axis := report.UnitAxes([]string{"readings_over_100", "failures"})
	if axis["readings_over_100"] == axis["failures"] {
		t.Error("oversubscription: readings and VMs share an axis")
	}
}

// TestGroupedBarsNull: a NULL in a view (off's share of its own oracle's
// gain, which has none) is a missing bar, not a bar at 0.
func TestGroupedBarsNull(t *testing.T) {
	r := &store.Result{Columns: []string{"arm", "dataset", "oracle_gain_share_median"},
		Rows: [][]any{{"off", "s", nil}, {"lava", "s", 0.5}}}
	b, err := json.Marshal(groupedBars(r, "arm", "dataset", []string{"oracle_gain_share_median"}).JSON()["series"])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.Contains(got, `"value":"-"`) || !strings.Contains(got, `"value":0.5`) || strings.Contains(got, `"value":0}`) {
		t.Fatalf("series %s: want the NULL as \"-\" and 0.5 as itself", got)
	}
}
