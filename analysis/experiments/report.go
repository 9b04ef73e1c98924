package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis"
	"placelab/analysis/report"
	store "placelab/sql"
)

// headline lists the figures each experiment's chart shows.
var headline = map[string][]string{
	"buckets":           {"pd_pct", "lp_bound_density_pct", "post_bestfit_pct", "conflicts_p99_per_min"},
	"inventory-scaling": {"latency_p99_us", "nocache_latency_p99_us", "memory_mb"},
	"agents":            {"burst_span_s", "conflicts_p99_per_s", "throughput_p99_per_s"},
	"violations":        {"violations policy=prv-worstfit", "violations policy=bestfit", "violations policy=worstfit"},
	"oversubscription":  {"readings_over_100", "failures", "oversubscribed_readings"},
	"paragon":           {"qos_share policy=paragon", "qos_share policy=nh", "qos_share policy=ni", "qos_share policy=random"},
	"characterize":      {"views_with_rows", "datasets"},
}

type pointResult struct {
	label string
	seed  int64
	figs  map[string]float64
}

// Page builds the experiments page: per experiment, the latest stored
// figures of every grid point, a chart of its headline figures with the
// paper's numbers beside them, the run parameters and seeds, and the SQL.
func Page(ctx context.Context, db *store.DB) (*report.Page, error) {
	res, err := db.QueryView(ctx, "experiment_results", "")
	if err != nil {
		return nil, err
	}
	q, _ := store.ViewSQL("experiment_results")
	ci := map[string]int{}
	for i, c := range res.Columns {
		ci[c] = i
	}
	// experiment → point → latest run's figures
	type key struct {
		exp   string
		point int64
	}
	latest := map[key]int64{}
	for _, r := range res.Rows {
		k := key{r[ci["experiment"]].(string), toInt(r[ci["point"]])}
		if id := toInt(r[ci["run_id"]]); id > latest[k] {
			latest[k] = id
		}
	}
	byExp := map[string]map[int64]*pointResult{}
	for _, r := range res.Rows {
		k := key{r[ci["experiment"]].(string), toInt(r[ci["point"]])}
		if toInt(r[ci["run_id"]]) != latest[k] {
			continue
		}
		if byExp[k.exp] == nil {
			byExp[k.exp] = map[int64]*pointResult{}
		}
		pr := byExp[k.exp][k.point]
		if pr == nil {
			pr = &pointResult{label: pointLabel(r[ci["params"]].(string)), seed: toInt(r[ci["seed"]]), figs: map[string]float64{}}
			byExp[k.exp][k.point] = pr
		}
		if v, ok := r[ci["value"]].(float64); ok {
			pr.figs[r[ci["metric"]].(string)] = v
		}
	}
	page := &report.Page{Title: "placelab — experiments", Subtitle: "The seeds' headline figures on placelab's data",
		Footer: "placelab experiment NAME|all [--quick] stores each grid point as a run; this page shows the latest run of every point.",
		Links:  analysis.ReportLinks}
	for _, e := range All() {
		pts := byExp[e.Name]
		sec := report.Section{Title: fmt.Sprintf("%s — %s (%s)", e.Name, e.Title, e.Reproduces), SQL: q}
		if len(pts) == 0 {
			sec.Note = "Not run yet: placelab experiment " + e.Name + " [--quick]. Full grid: " + e.FullTime + "."
			page.Sections = append(page.Sections, sec)
			continue
		}
		var order []int64
		for p := range pts {
			order = append(order, p)
		}
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		paper := map[string]PaperValue{}
		for _, pv := range e.Paper {
			paper[pv.Key] = pv
		}
		table := &store.Result{Columns: []string{"point", "parameters", "seed", "figure", "placelab", "paper"}}
		for _, p := range order {
			pr := pts[p]
			var names []string
			for m := range pr.figs {
				names = append(names, m)
			}
			sort.Strings(names)
			for _, m := range names {
				var pv any
				if v, ok := paper[strings.TrimSpace(m+" "+pr.label)]; ok {
					pv = v.Value
				}
				table.Rows = append(table.Rows, []any{p, pr.label, pr.seed, m, round4(pr.figs[m]), pv})
			}
		}
		sec.Table, sec.MaxRows = table, 200
		sec.Note = fmt.Sprintf("%d grid points (full grid: %s). The paper column holds the published number where %s prints one.", len(order), e.FullTime, e.Reproduces)
		sec.Chart = experimentChart(e, order, pts, paper)
		page.Sections = append(page.Sections, sec)
	}
	return page, nil
}

// experimentChart draws the headline figures per point, the paper's as
// translucent bars.
func experimentChart(e *Experiment, order []int64, pts map[int64]*pointResult, paper map[string]PaperValue) *charts.Bar {
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20, Interval: "0"}}), charts.WithAnimation(false))
	var xs []string
	for _, p := range order {
		xs = append(xs, pts[p].label)
	}
	bar.SetXAxis(xs)
	for _, m := range headline[e.Name] {
		items := make([]opts.BarData, len(order))
		any := false
		var pitems []opts.BarData
		hasPaper := false
		for i, p := range order {
			v, ok := pts[p].figs[m]
			if ok {
				any = true
			}
			items[i] = opts.BarData{Value: round4(v)}
			pv, okp := paper[strings.TrimSpace(m+" "+pts[p].label)]
			if okp {
				hasPaper = true
			}
			pitems = append(pitems, opts.BarData{Value: pv.Value})
		}
		if !any {
			continue
		}
		bar.AddSeries(m, items)
		if hasPaper {
			bar.AddSeries(m+" (paper)", pitems, charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0.4)}))
		}
	}
	return bar
}

// pointLabel turns a run's params JSON into "k=v k=v" (sorted, without the
// bookkeeping keys point and quick).
func pointLabel(params string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(params), &m); err != nil {
		return params
	}
	var parts []string
	for k, v := range m {
		if k == "point" || k == "quick" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
