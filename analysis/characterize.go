package analysis

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis/report"
	store "placelab/sql"
)

// Published numbers the characterization sets beside a trace's.
var (
	// Protean Table 1: share of machines per hardware generation (7,295,
	// 34,208, 18,016 and 2,064 machines of generations 3 to 6).
	paperTable1 = map[string]float64{"3": 11.85, "4": 55.55, "5": 29.25, "6": 3.35}
	// Protean Table 3: VM cores mix, zones 1 and 2 (%).
	paperTable3Zone1 = map[string]float64{"1": 17.1, "2": 37.4, "4": 32.0, "8": 8.9, ">=10": 4.3, ">=20": 0.3}
	paperTable3Zone2 = map[string]float64{"1": 27.0, "2": 52.4, "4": 10.5, "8": 4.5, ">=10": 2.6, ">=20": 3.1}
	// Resource Central Table 4, column "%" of each Table 3 bucket: the share
	// of VMs that truly fall in it, keyed "metric bucket".
	paperRCBuckets = map[string]float64{
		"avg_cpu 1": 74, "avg_cpu 2": 19, "avg_cpu 3": 6, "avg_cpu 4": 2,
		"p95_cpu 1": 25, "p95_cpu 2": 15, "p95_cpu 3": 14, "p95_cpu 4": 46,
		"deploy_vms 1": 49, "deploy_vms 2": 40, "deploy_vms 3": 10, "deploy_vms 4": 1,
		"deploy_cores 1": 19, "deploy_cores 2": 60, "deploy_cores 3": 19, "deploy_cores 4": 3,
		"lifetime 1": 29, "lifetime 2": 32, "lifetime 3": 32, "lifetime 4": 7,
		"workload_class 1": 99, "workload_class 2": 1,
	}
)

// charView is one section of the characterization: a view, what it
// reproduces, and how to draw it.
type charView struct {
	view, title, note string
	chart             func(r *store.Result) report.Chart
}

func charViews() []charView {
	return []charView{
		{"inventory_by_generation", "Inventory by hardware generation (Protean Table 1)",
			"Machines per generation; the paper's zone is the translucent series.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "generation", "pct_machines", "% of machines", "Protean Table 1", paperTable1)
			}},
		{"vm_type_share", "VM type mix (Protean Table 2)",
			"Share of VMs per type; the paper leaves out types under 2% in both zones (column below_2pct).",
			func(r *store.Result) report.Chart {
				return barWithPaper(topPerDataset(r, 10), "vm_type", "pct", "% of VMs", "", nil)
			}},
		{"cores_mix", "VM cores mix (Protean Table 3)",
			"Share of VMs by cores, beside the paper's two zones.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "cores", "pct", "% of VMs", "Protean zone 1", paperTable3Zone1, "Protean zone 2", paperTable3Zone2)
			}},
		{"reuse_distance", "Reuse distance (Protean Fig 2)",
			"CDF over VM requests of the distinct VM types requested since the last request of the same type (the paper: over 80% zero).",
			func(r *store.Result) report.Chart { return lineSeries(r, "distance", "cdf_pct", "value", "CDF %") }},
		{"requests_by_hour_of_week", "Requests per hour of the week (Protean Fig 3)",
			"Mean over the trace's weeks (hour 0 = the trace's first hour).",
			func(r *store.Result) report.Chart {
				return lineSeries(r, "hour_of_week", "mean_requests", "value", "requests")
			}},
		{"max_requests_per_second", "Peak requests per second (Protean Fig 4)",
			"Maximum of per-second requests in each 5-minute interval.",
			func(r *store.Result) report.Chart {
				return lineSeries(r, "interval_start_s", "max_requests_per_s", "value", "requests/s")
			}},
		{"lifetime_cdf", "VM lifetime (Protean Fig 5, Resource Central Fig 5)",
			"CDF of completed VMs' lifetimes; censored VMs are counted apart.",
			func(r *store.Result) report.Chart { return lineSeries(r, "label", "cdf_pct", "category", "CDF %") }},
		{"tenant_size", "Service request sizes (Protean §2.2)",
			"CDF of VMs per request (a tenant's VMs arriving together); the paper: 94% single-VM, 99% ≤ 5.",
			func(r *store.Result) report.Chart { return lineSeries(r, "size", "cdf_pct", "value", "CDF %") }},
		{"vm_category", "VM categories (Resource Central §3.1)", "Share of VMs and of core-hours by category.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "category", "pct_core_hours", "% of core-hours", "", nil)
			}},
		{"cpu_utilization_cdf", "CPU utilization (Resource Central Fig 1)",
			"CDFs over VMs of average and P95-max CPU utilization (the paper: 60% of VMs average under 20%, 40% have P95-max under 50%).",
			func(r *store.Result) report.Chart {
				return lineSeries(r, "util_pct", "avg_cdf_pct", "value", "CDF % (average)")
			}},
		{"vm_size_distribution", "VM sizes (Resource Central Figs 2–3)", "Distribution of cores and memory per VM.", nil},
		{"deployment_size", "Deployment sizes (Resource Central Fig 4)",
			"Per subscription and day, the largest deployment created; CDF.",
			func(r *store.Result) report.Chart { return lineSeries(r, "max_size", "cdf_pct", "value", "CDF %") }},
		{"long_lived_core_hours", "Long-lived VMs (Resource Central Fig 5)", "Share of VMs and core-hours of VMs living beyond 1, 3 and 7 days.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "lifetime", "pct_core_hours", "% of core-hours", "", nil)
			}},
		{"rc_buckets", "Prediction buckets (Resource Central Tables 3–4)",
			"Share of VMs in each of the buckets RC predicts, beside the shares RC's trace had (Table 4, column %).",
			func(r *store.Result) report.Chart { return bucketBars(r) }},
		{"core_hours_by_class", "Workload classes (Resource Central Fig 6, §3.6)",
			"Potentially interactive (periodic at 24 h) vs delay-insensitive, from placelab classify.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "class", "pct_core_hours", "% of core-hours", "", nil)
			}},
		{"periodicity_accuracy", "Periodicity detection against labels (Resource Central §3.6)",
			"For datasets whose VMs carry a period label: labelled VMs with a significant period at their label (recall), and unlabelled VMs flagged periodic.",
			nil},
		{"arrivals_per_hour", "Arrivals per hour (Resource Central Fig 7)", "VM arrivals per hour.",
			func(r *store.Result) report.Chart { return lineSeries(r, "hour", "arrivals", "value", "arrivals") }},
		{"interarrival", "Inter-arrival times (Resource Central Fig 7)", "Gaps between arrivals with a least-squares Weibull fit.", nil},
		{"subscription_cov", "Per-subscription consistency (Resource Central §3)",
			"Share of subscriptions whose VMs vary little (CoV < 1) in each metric.",
			func(r *store.Result) report.Chart {
				return barWithPaper(r, "metric", "pct_cov_below_1", "% of subscriptions with CoV < 1", "", nil)
			}},
		{"metric_correlation", "Correlation between metrics (Resource Central Fig 8)", "Spearman rank correlation between per-VM metrics.",
			func(r *store.Result) report.Chart { return correlationHeatMap(r) }},
	}
}

// Characterize builds the characterization page: one section per view
// with its chart, its numbers and its SQL. A view with no rows for the
// dataset says why rather than failing.
func Characterize(ctx context.Context, db *store.DB, dataset string, progress func(done, total int64)) (*report.Page, map[string]*store.Result, error) {
	vs := charViews()
	page := &report.Page{Title: "placelab — workload characterization", Subtitle: "All loaded datasets",
		Footer: "Views in sql/views reproduce Protean §2 and Resource Central §3; placelab classify fills the workload classes.", Links: ReportLinks}
	if dataset != "" {
		page.Subtitle = "Dataset " + dataset
	}
	out := map[string]*store.Result{}
	for i, v := range vs {
		if progress != nil {
			progress(int64(i), int64(len(vs)))
		}
		res, err := db.QueryView(ctx, v.view, dataset)
		if err != nil {
			return nil, nil, fmt.Errorf("analysis: view %s: %w", v.view, err)
		}
		q, _ := store.ViewSQL(v.view)
		out[v.view] = res
		sec := report.Section{Title: v.title, Note: v.note, Table: res, SQL: q, MaxRows: 20}
		if len(res.Rows) == 0 {
			sec.Note += " No rows: the dataset lacks the columns this view needs (e.g. CPU summaries, subscriptions, or a classification run)."
			sec.Table = nil
		} else if v.chart != nil {
			sec.Chart = v.chart(res)
		}
		page.Sections = append(page.Sections, sec)
	}
	if progress != nil {
		progress(int64(len(vs)), int64(len(vs)))
	}
	return page, out, nil
}

// barWithPaper draws y by x, one series per dataset, plus paper series
// given as (name, values by x) pairs.
func barWithPaper(r *store.Result, xc, yc, yname string, paper ...any) *charts.Bar {
	ds, xi, yi := col(r, "dataset"), col(r, xc), col(r, yc)
	var xs []string
	seenX := map[string]bool{}
	vals := map[string]map[string]float64{}
	var dsOrder []string
	for _, row := range r.Rows {
		d, x := fmt.Sprint(row[ds]), fmt.Sprint(row[xi])
		if vals[d] == nil {
			vals[d] = map[string]float64{}
			dsOrder = append(dsOrder, d)
		}
		vals[d][x] = num(row[yi])
		if !seenX[x] && len(xs) < 40 {
			seenX[x] = true
			xs = append(xs, x)
		}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(opts.YAxis{Name: yname}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}), charts.WithAnimation(false))
	bar.SetXAxis(xs)
	for _, d := range dsOrder {
		items := make([]opts.BarData, len(xs))
		for i, x := range xs {
			items[i] = opts.BarData{Value: round2(vals[d][x])}
		}
		bar.AddSeries(d, items)
	}
	for i := 0; i+1 < len(paper); i += 2 {
		name, _ := paper[i].(string)
		pv, _ := paper[i+1].(map[string]float64)
		if name == "" || pv == nil {
			continue
		}
		items := make([]opts.BarData, len(xs))
		for k, x := range xs {
			items[k] = opts.BarData{Value: pv[x]}
		}
		bar.AddSeries(name, items, charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0.45)}))
	}
	return bar
}

// topPerDataset keeps each dataset's first n rows (views order them by
// share), so one large dataset's long tail does not crowd the others out of
// a shared axis.
func topPerDataset(r *store.Result, n int) *store.Result {
	ds := col(r, "dataset")
	out := &store.Result{Columns: r.Columns}
	seen := map[string]int{}
	for _, row := range r.Rows {
		d := fmt.Sprint(row[ds])
		if seen[d] < n {
			seen[d]++
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// bucketBars draws rc_buckets: one bar per (metric, bucket) and dataset,
// with RC's shares as a translucent series.
func bucketBars(r *store.Result) *charts.Bar {
	ds, mi, bi, pi := col(r, "dataset"), col(r, "metric"), col(r, "bucket"), col(r, "pct")
	var xs, order []string
	seen := map[string]bool{}
	vals := map[string]map[string]float64{}
	for _, row := range r.Rows {
		d, x := fmt.Sprint(row[ds]), fmt.Sprintf("%v %v", row[mi], row[bi])
		if vals[d] == nil {
			vals[d] = map[string]float64{}
			order = append(order, d)
		}
		vals[d][x] = num(row[pi])
		if !seen[x] {
			seen[x] = true
			xs = append(xs, x)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i] < xs[j] })
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(opts.YAxis{Name: "% of VMs"}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 40, Interval: "0"}}), charts.WithAnimation(false))
	bar.SetXAxis(xs)
	for _, d := range order {
		items := make([]opts.BarData, len(xs))
		for i, x := range xs {
			items[i] = opts.BarData{Value: round2(vals[d][x])}
		}
		bar.AddSeries(d, items)
	}
	items := make([]opts.BarData, len(xs))
	for i, x := range xs {
		items[i] = opts.BarData{Value: paperRCBuckets[x]}
	}
	bar.AddSeries("Resource Central", items, charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0.45)}))
	return bar
}

// lineSeries draws y against x, one line per dataset.
func lineSeries(r *store.Result, xc, yc, xtype, yname string) *charts.Line {
	ds, xi, yi := col(r, "dataset"), col(r, xc), col(r, yc)
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(opts.YAxis{Name: yname}),
		charts.WithXAxisOpts(opts.XAxis{Type: xtype, Name: xc}), charts.WithAnimation(false))
	series := map[string][]opts.LineData{}
	var order, cats []string
	seen := map[string]bool{}
	for _, row := range r.Rows {
		d := fmt.Sprint(row[ds])
		if _, ok := series[d]; !ok {
			order = append(order, d)
		}
		if xtype == "category" {
			x := fmt.Sprint(row[xi])
			if !seen[x] {
				seen[x] = true
				cats = append(cats, x)
			}
			series[d] = append(series[d], opts.LineData{Value: round2(num(row[yi]))})
		} else {
			series[d] = append(series[d], opts.LineData{Value: []float64{num(row[xi]), round2(num(row[yi]))}})
		}
	}
	if xtype == "category" {
		line.SetXAxis(cats)
	}
	for _, d := range order {
		line.AddSeries(d, series[d], charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return line
}

// correlationHeatMap draws the Spearman matrix of the dataset with the
// most VMs (the table beneath lists every dataset's).
func correlationHeatMap(r *store.Result) *charts.HeatMap {
	ds, ai, bi, vi, ni := col(r, "dataset"), col(r, "metric_a"), col(r, "metric_b"), col(r, "spearman"), col(r, "vms")
	var first string
	most := -1.0
	for _, row := range r.Rows {
		if n := num(row[ni]); n > most {
			most, first = n, fmt.Sprint(row[ds])
		}
	}
	idx := map[string]int{}
	var names []string
	type cell struct {
		a, b string
		v    any
	}
	var cells []cell
	for _, row := range r.Rows {
		if fmt.Sprint(row[ds]) != first {
			continue
		}
		a, b := fmt.Sprint(row[ai]), fmt.Sprint(row[bi])
		for _, n := range []string{a, b} {
			if _, ok := idx[n]; !ok {
				idx[n] = 0
				names = append(names, n)
			}
		}
		cells = append(cells, cell{a, b, row[vi]})
	}
	sort.Strings(names)
	for i, n := range names {
		idx[n] = i
	}
	var data []opts.HeatMapData
	for _, c := range cells {
		if c.v == nil {
			continue
		}
		v := round2(num(c.v))
		data = append(data, opts.HeatMapData{Value: [3]any{idx[c.a], idx[c.b], v}}, opts.HeatMapData{Value: [3]any{idx[c.b], idx[c.a], v}})
	}
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: names, AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: -1, Max: 1, InRange: &opts.VisualMapInRange{Color: []string{"#3b6fb6", "#f7f7f7", "#c0392b"}}}),
		charts.WithAnimation(false))
	hm.AddSeries("spearman "+first, data)
	return hm
}
