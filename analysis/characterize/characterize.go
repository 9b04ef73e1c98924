package characterize

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis"
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
// reproduces, and how to draw it. paper names the published numbers the
// section sets beside a dataset's (in its chart or its note; "" if none);
// calibrated names what placelab's synthetic generator takes from the
// papers for this view ("" if nothing): for a synthetic dataset the
// comparison checks the generator, it reproduces nothing.
type charView struct {
	view, title, note string
	paper, calibrated string
	chart             func(r *store.Result, series func(dataset string) string) report.Chart
}

func charViews() []charView {
	return []charView{
		{"inventory_by_generation", "Inventory by hardware generation (Protean Table 1)",
			"Machines per generation; the paper's zone is the translucent series.",
			"Protean Table 1", "Protean Table 1's machine counts per generation",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "generation", "pct_machines", "share of machines (%)", "paper: Protean Table 1", paperTable1)
			}},
		{"vm_type_share", "VM type mix (Protean Table 2)",
			"Share of VMs per type; the paper leaves out types under 2% in both zones (column below_2pct).",
			"", "the shape of Protean Table 2 (two dominant types, 23.5% and 21.3%, and a long tail)",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(topPerDataset(r, 10), series, "vm_type", "pct", "share of VMs (%)", "", nil)
			}},
		{"cores_mix", "VM cores mix (Protean Table 3)",
			"Share of VMs by cores, beside the paper's two zones.",
			"Protean Table 3", "Protean Table 3 Zone1's cores mix (exact in the type shares)",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "cores", "pct", "share of VMs (%)", "paper: Protean Table 3 zone 1", paperTable3Zone1,
					"paper: Protean Table 3 zone 2", paperTable3Zone2)
			}},
		{"reuse_distance", "Reuse distance (Protean Fig 2)",
			"CDF over VM requests of the distinct VM types requested since the last request of the same type (the paper: over 80% zero).",
			"Protean Fig 2", "Protean Fig 2 (runs of repeated requests, over 80% zero reuse distance)",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "distance", "reuse distance (VM types)", "cdf_pct", "value", "CDF (% of requests)")
			}},
		{"requests_by_hour_of_week", "Requests per hour of the week (Protean Fig 3)",
			"Mean over the trace's weeks (hour 0 = the trace's first hour).",
			"", "the diurnal and weekly shape of Protean Fig 3",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "hour_of_week", "hour of the week (h)", "mean_requests", "value", "mean requests (requests per hour)")
			}},
		{"max_requests_per_second", "Peak requests per second (Protean Fig 4)",
			"Maximum of per-second requests in each 5-minute interval.",
			"", "the bursts of Protean Fig 4",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "interval_start_s", "interval start (s)", "max_requests_per_s", "value", "peak requests (per s)")
			}},
		{"lifetime_cdf", "VM lifetime (Protean Fig 5, Resource Central Fig 5)",
			"CDF of completed VMs' lifetimes; censored VMs are counted apart.",
			"", "the lifetimes of Resource Central Fig 5 and Protean §2.2",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "label", "lifetime", "cdf_pct", "category", "CDF (% of completed VMs)")
			}},
		{"tenant_size", "Service request sizes (Protean §2.2)",
			"CDF of VMs per request (a tenant's VMs arriving together); the paper: 94% single-VM, 99% ≤ 5.",
			"Protean §2.2", "Protean §2.2's request sizes (94% single-VM, 99% ≤ 5)",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "size", "request size (VMs)", "cdf_pct", "value", "CDF (% of requests)")
			}},
		{"vm_category", "VM categories (Resource Central §3.1)", "Share of VMs and of core-hours by category.", "", "",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "category", "pct_core_hours", "share of core-hours (%)", "", nil)
			}},
		{"cpu_utilization_cdf", "CPU utilization (Resource Central Fig 1)",
			"CDFs over VMs of average and P95-max CPU utilization (the paper: 60% of VMs average under 20%, 40% have P95-max under 50%).",
			"Resource Central Fig 1", "Resource Central Fig 1's CDFs",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "util_pct", "average CPU utilization (%)", "avg_cdf_pct", "value", "CDF of average utilization (% of VMs)")
			}},
		{"vm_size_distribution", "VM sizes (Resource Central Figs 2–3)", "Distribution of cores and memory per VM.", "", "", nil},
		{"deployment_size", "Deployment sizes (Resource Central Fig 4)",
			"Per subscription and day, the largest deployment created; CDF.", "", "",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "max_size", "largest deployment (VMs)", "cdf_pct", "value", "CDF (% of subscription-days)")
			}},
		{"long_lived_core_hours", "Long-lived VMs (Resource Central Fig 5)", "Share of VMs and core-hours of VMs living beyond 1, 3 and 7 days.",
			"", "the lifetimes of Resource Central Fig 5",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "lifetime", "pct_core_hours", "share of core-hours (%)", "", nil)
			}},
		{"rc_buckets", "Prediction buckets (Resource Central Tables 3–4)",
			"Share of VMs in each of the buckets RC predicts, beside the shares RC's trace had (Table 4, column %).",
			"Resource Central Table 4", "Resource Central Fig 1 (the CPU buckets), Protean §2.2 (deployment sizes) and RC Fig 5 (lifetimes), not Table 4 itself",
			func(r *store.Result, series func(string) string) report.Chart { return bucketBars(r, series) }},
		{"core_hours_by_class", "Workload classes (Resource Central Fig 6, §3.6)",
			"Potentially interactive (periodic at 24 h) vs delay-insensitive, from placelab classify.",
			"", "Resource Central Fig 6 (about 28% of core-hours interactive)",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "class", "pct_core_hours", "share of core-hours (%)", "", nil)
			}},
		{"periodicity_accuracy", "Periodicity detection against labels (Resource Central §3.6)",
			"For datasets whose VMs carry a period label: labelled VMs with a significant period at their label (recall), and unlabelled VMs flagged periodic.",
			"", "", nil},
		{"arrivals_per_hour", "Arrivals per hour (Resource Central Fig 7)", "VM arrivals per hour.",
			"", "the diurnal arrivals of Resource Central Fig 7 and Protean Fig 3",
			func(r *store.Result, series func(string) string) report.Chart {
				return lineSeries(r, series, "hour", "hour of the trace (h)", "arrivals", "value", "arrivals (VMs)")
			}},
		{"interarrival", "Inter-arrival times (Resource Central Fig 7)", "Gaps between arrivals with a least-squares Weibull fit.", "", "", nil},
		{"subscription_cov", "Per-subscription consistency (Resource Central §3)",
			"Share of subscriptions whose VMs vary little (CoV < 1) in each metric.",
			"", "Resource Central §3 (subscriptions' VMs vary little: CoV < 1)",
			func(r *store.Result, series func(string) string) report.Chart {
				return barWithPaper(r, series, "metric", "pct_cov_below_1", "subscriptions with CoV < 1 (%)", "", nil)
			}},
		{"metric_correlation", "Correlation between metrics (Resource Central Fig 8)", "Spearman rank correlation between per-VM metrics.",
			"", "Resource Central Fig 8 (average and maximum CPU strongly correlated)",
			func(r *store.Result, _ func(string) string) report.Chart { return correlationHeatMap(r) }},
	}
}

// matchesByConstruction lists the views a synthetic dataset reproduces the
// generator's input for (up to sampling): the paper's own numbers went in.
var matchesByConstruction = map[string]bool{
	"inventory_by_generation": true, "vm_type_share": true, "cores_mix": true, "reuse_distance": true,
	"tenant_size": true, "cpu_utilization_cdf": true, "core_hours_by_class": true,
}

// syntheticFormat is the format synth.Ingest and placelab generate record
// for a generated dataset; syntheticInventory prefixes the --inventory spec
// of a trace whose machines were generated from Protean Table 1.
const (
	syntheticFormat    = "synthetic"
	syntheticInventory = "synthetic:"
)

// origin says where a dataset's rows come from.
type origin struct {
	synthetic bool // generated whole from the papers' tables and figures
	inventory bool // a trace whose machines were generated (--inventory synthetic:N)
}

// datasetOrigins reads every loaded dataset's origin.
func datasetOrigins(ctx context.Context, db *store.DB) (map[string]origin, error) {
	res, err := db.Query(ctx, store.MustQuery("dataset_origin"))
	if err != nil {
		return nil, fmt.Errorf("analysis: dataset origins: %w", err)
	}
	out := map[string]origin{}
	for _, r := range res.Rows {
		format, _ := r[1].(string)
		inv, _ := r[2].(string)
		out[fmt.Sprint(r[0])] = origin{synthetic: format == syntheticFormat, inventory: strings.HasPrefix(inv, syntheticInventory)}
	}
	return out, nil
}

// comparisonNote says, for a section that sets published numbers beside the
// datasets in r, which datasets are measured traces compared with the paper
// and which were generated from the paper (a calibration check of the
// generator, matching by construction), and names them.
func comparisonNote(v charView, r *store.Result, origins map[string]origin) string {
	var gen, inv, real []string
	seen := map[string]bool{}
	di := analysis.Col(r, "dataset")
	for _, row := range r.Rows {
		d := fmt.Sprint(row[di])
		if seen[d] {
			continue
		}
		seen[d] = true
		o := origins[d]
		switch {
		case o.synthetic:
			gen = append(gen, d)
		case o.inventory && v.view == "inventory_by_generation":
			inv = append(inv, d)
		default:
			real = append(real, d)
		}
	}
	var b strings.Builder
	if len(gen) > 0 && v.calibrated != "" {
		fmt.Fprintf(&b, " Calibration check, not a reproduction: %s %s %s synthetic, generated from %s",
			analysis.Plural(len(gen), "dataset", "datasets"), strings.Join(gen, ", "), analysis.Plural(len(gen), "is", "are"), v.calibrated)
		if matchesByConstruction[v.view] {
			fmt.Fprintf(&b, ", and %s by construction.", analysis.Plural(len(gen), "matches", "match"))
		} else {
			b.WriteString("; any agreement with the papers comes from those inputs, not from measured data.")
		}
	}
	if len(inv) > 0 {
		fmt.Fprintf(&b, " Calibration check, not a reproduction: the machines of %s %s were generated (--inventory synthetic) from Protean Table 1's machine counts and match it by construction.",
			analysis.Plural(len(inv), "dataset", "datasets"), strings.Join(inv, ", "))
	}
	if len(real) > 0 && v.paper != "" {
		fmt.Fprintf(&b, " Beside %s: %s %s.", v.paper, analysis.Plural(len(real), "dataset", "datasets"), strings.Join(real, ", "))
	}
	return b.String()
}

// Run builds the characterization page: one section per view
// with its chart, its numbers and its SQL. A view with no rows for the
// dataset says why rather than failing. Where a section sets the papers'
// numbers beside a dataset generated from them, it says that this checks
// the generator's calibration and reproduces nothing.
func Run(ctx context.Context, db *store.DB, dataset string, progress func(done, total int64)) (*report.Page, map[string]*store.Result, error) {
	vs := charViews()
	page := &report.Page{Title: "placelab — workload characterization", Subtitle: "All loaded datasets",
		Footer: "Views in sql/views reproduce Protean §2 and Resource Central §3; placelab classify fills the workload classes.", Links: report.SiteLinks}
	if dataset != "" {
		page.Subtitle = "Dataset " + dataset
	}
	origins, err := datasetOrigins(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	if len(origins) == 0 {
		page.Subtitle = "No datasets loaded"
	}
	var gen []string
	for name, o := range origins {
		if o.synthetic && (dataset == "" || dataset == name) {
			gen = append(gen, name)
		}
	}
	if len(gen) > 0 {
		sort.Strings(gen)
		page.Subtitle += fmt.Sprintf(" — synthetic %s %s: generated from the papers' tables and figures, so beside them it checks the generator, not the papers",
			analysis.Plural(len(gen), "dataset", "datasets"), strings.Join(gen, ", "))
	}
	results, err := queryViews(ctx, db, vs, dataset, progress)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*store.Result{}
	for i, v := range vs {
		res := results[i]
		q, _ := store.ViewSQL(v.view)
		out[v.view] = res
		sec := report.Section{Title: v.title, Note: v.note, Table: res, SQL: q, MaxRows: 20}
		switch {
		case len(origins) == 0:
			sec.Note += " No rows: the database holds no datasets (placelab generate or placelab ingest loads one)."
			sec.Table = nil
		case len(res.Rows) == 0:
			sec.Note += " No rows: the dataset lacks the columns this view needs (e.g. CPU summaries, subscriptions, or a classification run)."
			sec.Table = nil
		default:
			sec.Note += comparisonNote(v, res, origins)
			if v.chart != nil {
				sec.Chart = v.chart(res, seriesName(v, origins))
			}
		}
		page.Sections = append(page.Sections, sec)
	}
	return page, out, nil
}

// Workers is how many views Characterize runs at once, each on
// its own connection of the database's pool. DuckDB runs every query on
// all cores already; a second query fills the phases where one runs on a
// single thread (window partitions, small final steps), so two at once
// take less wall time than one after another, and more add little.
const Workers = 2

// queryViews runs the views CharacterizeWorkers at a time, the slowest
// first, and returns their results in vs' order; the first error stops it.
func queryViews(ctx context.Context, db *store.DB, vs []charView, dataset string, progress func(done, total int64)) ([]*store.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	// The views whose cost grows fastest go first, so that the last one
	// to finish is a short one.
	sort.SliceStable(order, func(a, b int) bool { return heavyView[vs[order[a]].view] > heavyView[vs[order[b]].view] })
	results := make([]*store.Result, len(vs))
	jobs := make(chan int)
	errs := make(chan error, len(vs))
	var mu sync.Mutex
	done := int64(0)
	if progress != nil {
		progress(0, int64(len(vs)))
	}
	var wg sync.WaitGroup
	for w := 0; w < Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := db.QueryView(ctx, vs[i].view, dataset)
				if err != nil {
					errs <- fmt.Errorf("analysis: view %s: %w", vs[i].view, err)
					cancel()
					continue
				}
				mu.Lock()
				results[i] = res
				done++
				if progress != nil {
					progress(done, int64(len(vs)))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, i := range order {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// heavyView ranks the views that take longest at scale (measured at 10M
// VMs with placelab bench views); the rest keep the page's order.
var heavyView = map[string]int{
	"reuse_distance": 6, "rc_buckets": 5, "metric_correlation": 4, "deployment_size": 3, "interarrival": 2, "tenant_size": 1,
}

// seriesName labels a dataset's series in a section's chart: a generated
// dataset is marked as such where the section compares it with the papers.
func seriesName(v charView, origins map[string]origin) func(string) string {
	return func(d string) string {
		o := origins[d]
		switch {
		case o.synthetic && v.calibrated != "":
			return d + " (synthetic: calibration check)"
		case o.inventory && v.view == "inventory_by_generation":
			return d + " (generated inventory: calibration check)"
		}
		return d
	}
}

// barWithPaper draws y by x, one series per dataset, plus paper series
// given as (name, values by x) pairs.
func barWithPaper(r *store.Result, series func(string) string, xc, yc, yname string, paper ...any) *charts.Bar {
	ds, xi, yi := analysis.Col(r, "dataset"), analysis.Col(r, xc), analysis.Col(r, yc)
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
		vals[d][x] = analysis.Num(row[yi])
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
			items[i] = opts.BarData{Value: analysis.Round2(vals[d][x])}
		}
		bar.AddSeries(series(d), items)
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
	ds := analysis.Col(r, "dataset")
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
func bucketBars(r *store.Result, series func(string) string) *charts.Bar {
	ds, mi, bi, pi := analysis.Col(r, "dataset"), analysis.Col(r, "metric"), analysis.Col(r, "bucket"), analysis.Col(r, "pct")
	var xs, order []string
	seen := map[string]bool{}
	vals := map[string]map[string]float64{}
	for _, row := range r.Rows {
		d, x := fmt.Sprint(row[ds]), fmt.Sprintf("%v %v", row[mi], row[bi])
		if vals[d] == nil {
			vals[d] = map[string]float64{}
			order = append(order, d)
		}
		vals[d][x] = analysis.Num(row[pi])
		if !seen[x] {
			seen[x] = true
			xs = append(xs, x)
		}
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i] < xs[j] })
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(opts.YAxis{Name: "share of VMs (%)"}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 40, Interval: "0"}}), charts.WithAnimation(false))
	bar.SetXAxis(xs)
	for _, d := range order {
		items := make([]opts.BarData, len(xs))
		for i, x := range xs {
			items[i] = opts.BarData{Value: analysis.Round2(vals[d][x])}
		}
		bar.AddSeries(series(d), items)
	}
	items := make([]opts.BarData, len(xs))
	for i, x := range xs {
		items[i] = opts.BarData{Value: paperRCBuckets[x]}
	}
	bar.AddSeries("paper: Resource Central Table 4", items, charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0.45)}))
	return bar
}

// lineSeries draws y against x, one line per dataset (named by name), the
// axes named xname and yname ("what (unit)").
func lineSeries(r *store.Result, name func(string) string, xc, xname, yc, xtype, yname string) *charts.Line {
	ds, xi, yi := analysis.Col(r, "dataset"), analysis.Col(r, xc), analysis.Col(r, yc)
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}), charts.WithYAxisOpts(opts.YAxis{Name: yname}),
		charts.WithXAxisOpts(opts.XAxis{Type: xtype, Name: xname}), charts.WithAnimation(false))
	byDS := map[string][]opts.LineData{}
	defined := map[string]bool{}
	var order, cats []string
	seen := map[string]bool{}
	for _, row := range r.Rows {
		d := fmt.Sprint(row[ds])
		if _, ok := byDS[d]; !ok {
			order = append(order, d)
		}
		if xtype == "category" {
			x := fmt.Sprint(row[xi])
			if !seen[x] {
				seen[x] = true
				cats = append(cats, x)
			}
			if row[yi] == nil {
				// Undefined (a dataset with no completed VM has no CDF):
				// a gap ("-" in ECharts), never a point at 0.
				byDS[d] = append(byDS[d], opts.LineData{Value: "-"})
				continue
			}
			byDS[d] = append(byDS[d], opts.LineData{Value: analysis.Round2(analysis.Num(row[yi]))})
			defined[d] = true
		} else {
			if row[yi] == nil || row[xi] == nil {
				continue
			}
			byDS[d] = append(byDS[d], opts.LineData{Value: []float64{analysis.Num(row[xi]), analysis.Round2(analysis.Num(row[yi]))}})
			defined[d] = true
		}
	}
	if xtype == "category" {
		line.SetXAxis(cats)
	}
	for _, d := range order {
		if !defined[d] {
			continue // nothing to draw: no legend entry without a line
		}
		line.AddSeries(name(d), byDS[d], charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return line
}

// correlationHeatMap draws the Spearman matrix of the dataset with the
// most VMs (the table beneath lists every dataset's).
func correlationHeatMap(r *store.Result) *charts.HeatMap {
	ds, ai, bi, vi, ni := analysis.Col(r, "dataset"), analysis.Col(r, "metric_a"), analysis.Col(r, "metric_b"), analysis.Col(r, "spearman"), analysis.Col(r, "vms")
	var first string
	most := -1.0
	for _, row := range r.Rows {
		if n := analysis.Num(row[ni]); n > most {
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
		v := analysis.Round2(analysis.Num(c.v))
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

// ViewNames lists the characterization views Characterize runs, in its
// order (placelab bench views times each alone).
func ViewNames() []string {
	vs := charViews()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.view
	}
	return out
}
