package overview

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis"
	"placelab/analysis/report"
	store "placelab/sql"
)

// maxTypeBars is how many VM types the type-mix chart shows per dataset
// before grouping the rest as "other".
const maxTypeBars = 25

// Page builds the first page: what each loaded dataset holds, its
// inventory, its workload, the VM type mix and arrivals per hour. dataset
// restricts it to one dataset ("" = all).
func Page(ctx context.Context, db *store.DB, dataset string) (*report.Page, error) {
	view := func(name string) (*store.Result, string, error) {
		res, err := db.QueryView(ctx, name, dataset)
		if err != nil {
			return nil, "", err
		}
		q, _ := store.ViewSQL(name)
		return res, q, nil
	}
	summary, summarySQL, err := view("dataset_summary")
	if err != nil {
		return nil, err
	}
	if len(summary.Rows) == 0 && dataset != "" {
		return nil, fmt.Errorf("analysis: no dataset named %q is loaded", dataset)
	}
	inv, invSQL, err := view("inventory_by_sku")
	if err != nil {
		return nil, err
	}
	work, workSQL, err := view("workload_summary")
	if err != nil {
		return nil, err
	}
	mix, mixSQL, err := view("vm_type_mix")
	if err != nil {
		return nil, err
	}
	arr, arrSQL, err := view("arrivals_per_hour")
	if err != nil {
		return nil, err
	}
	runs, runsSQL, err := view("run_summary")
	if err != nil {
		return nil, err
	}
	dens, densSQL, err := view("run_density")
	if err != nil {
		return nil, err
	}
	avail, availSQL, err := view("availability_summary")
	if err != nil {
		return nil, err
	}
	heal, healSQL, err := view("run_healable")
	if err != nil {
		return nil, err
	}
	clu, cluSQL, err := view("cluster_summary")
	if err != nil {
		return nil, err
	}
	gap, gapSQL, err := view("lpbound_gap")
	if err != nil {
		return nil, err
	}
	lpd, lpdSQL, err := view("lpbound_density")
	if err != nil {
		return nil, err
	}
	ovs, ovsSQL, err := view("oversub_arms")
	if err != nil {
		return nil, err
	}
	vio, vioSQL, err := view("violation_results")
	if err != nil {
		return nil, err
	}
	pg, pgSQL, err := view("paragon_results")
	if err != nil {
		return nil, err
	}
	t4, t4SQL, err := view("rc_table4")
	if err != nil {
		return nil, err
	}
	title := "placelab — overview"
	sub := "All loaded datasets"
	if dataset != "" {
		sub = "Dataset " + dataset
	}
	p := &report.Page{Title: title, Subtitle: sub,
		Footer: "Written by placelab from " + dbName(db) + ".", Links: report.SiteLinks}
	if len(summary.Rows) == 0 {
		// Experiments and simulations need no dataset: the page still
		// lists what the database holds, and says what is missing.
		p.Subtitle = "No datasets loaded"
		p.Sections = append(p.Sections, report.Section{Title: "Datasets",
			Note: "The database holds no datasets (placelab generate or placelab ingest loads one), so there is no inventory, workload, type mix or arrivals to show. " +
				"Stored experiments are on the experiments page; stored runs that need no dataset are listed below.",
			SQL: summarySQL})
	} else {
		p.Sections = append(p.Sections,
			report.Section{Title: "Datasets", Note: "What each loaded dataset holds.", Table: summary, SQL: summarySQL},
		)
		planner, err := plannerSections(ctx, db, dataset)
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, planner...)
		p.Sections = append(p.Sections,
			report.Section{Title: "Inventory", Note: "Machines by SKU (hardware generation): the shape of Protean Table 1.", Table: inv, SQL: invSQL},
			report.Section{Title: "Workload", Note: "VMs, tenants, lifetimes (completed VMs; censored VMs counted apart) and sizes.", Table: work, SQL: workSQL},
			report.Section{Title: "VM type mix", Note: "Share of VM requests per VM type (the shape of Protean Table 2).",
				Chart: typeMixChart(mix), Table: mix, MaxRows: 30, SQL: mixSQL},
			report.Section{Title: "Arrivals per hour", Note: "VM arrivals per hour since the start of the trace (Protean Fig 3, Resource Central Fig 7).",
				Chart: arrivalsChart(arr), Table: nil, SQL: arrSQL},
		)
	}
	if len(runs.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Replay runs", Note: "Every stored replay: policy, parameters, outcomes, mean packing density (allocated cores / cores of non-empty machines, Protean §6.3) and decision latency; cost_per_hour is a priced run's $ per hour (replay --catalog: Σ machines × their SKU's price).",
				Table: runs, SQL: runsSQL},
			report.Section{Title: "Packing density over time", Note: "One line per run (the latest " + fmt.Sprint(maxRunLines) + "); a run of one sample, such as placelab lpbound's packing at one instant, is in the table above.",
				Chart: densityChart(dens), SQL: densSQL})
	}
	if len(avail.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Availability: what packing is traded against",
				Note: "Every replay's failure rates by VMs per buffer (new deployment, scale-out, heal: the allocator slides' buffers), " +
					"the capacity fulfillment rate CFR (VMs placed / VMs requested, heals included; Protean §6.3 targets four nines), VM downtime, " +
					"outages, and the means of its interval samples of healable single-machine and single-rack failures (the VMs of the failed " +
					"machines could all be healed in their cluster under the healing buffer). Runs with failures (placelab replay --failures, " +
					"--failure-file, --maintenance) and availability sets (--fault-domains, --update-domains) sit beside the runs without them.",
				Table: avail, SQL: availSQL},
			report.Section{Title: "Healable rack failures over time",
				Note:  "One line per run (the latest " + fmt.Sprint(maxRunLines) + "): the percent of racks whose failure, at that sample, could be healed in their cluster. Utilization alone does not tell it (the slides: 66% utilization with 0 empty nodes cannot heal a third of single-node failures).",
				Chart: runLineChart(heal, "healable_rack_failures_pct", "healable rack failures (%)", 1), SQL: healSQL})
	}
	if len(gap.Rows) > 0 {
		p.Sections = append(p.Sections, lpSections(gap, lpd, gapSQL+"\n\n"+lpdSQL)...)
	}
	if len(clu.Rows) > 0 {
		p.Sections = append(p.Sections, report.Section{Title: "Your cluster: how many nodes could go",
			Note: "Every run over a Kubernetes cluster (placelab ingest k8s): kube-scheduler's observed placement, replays of the same pods " +
				"(placelab whatif policies), the interval's packing and drain plans (placelab lpbound, placelab whatif drain; engine offline). " +
				"lb_nodes: no placement of the run's pods needs fewer nodes; ub_nodes: one on that many exists (stored, checked); " +
				"drainable_nodes = nodes_in_use − ub_nodes. A packing or plan keeps a node's DaemonSet pods only where the node stays.",
			Chart: clusterChart(clu), Table: clu, SQL: cluSQL})
	}
	if fp, fpSQL, err := view("fleet_plans"); err != nil {
		return nil, err
	} else if len(fp.Rows) > 0 {
		p.Sections = append(p.Sections, report.Section{Title: "Fleet plans",
			Note: "Every stored placelab plan --catalog: the cheapest fleet of the catalog's types found for a snapshot's pods or a trace's VMs " +
				"(dataset: the source; plan_dataset: the plan, stored and checked by placelab check), in $ per hour. " +
				"lb_cost_per_hour: no fleet of those types holding the same pods costs less (the configuration LP's bound); gap_pct = 100 × (cost − lb) / lb. " +
				"Beside it, on the same pods: a Karpenter-style fleet (pods by size, each claim launching its cheapest fitting type), " +
				"the cheapest fleet of one type (empty where no one type holds every pod) and the current fleet priced by its instance types.",
			Chart: fleetPlansChart(fp), Table: fp, SQL: fpSQL})
	}
	if len(ovs.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "CPU oversubscription (Resource Central §6.2)",
				Note:  "Each arm stored by placelab oversub: scheduling failures and 5-minute server readings above 100% (co-located VMs' maximum utilizations summed). Resource Central §6.2, at its own scale (336k VMs on 880 servers over one month): Baseline failed 0.25% of VMs and had no reading above 100%; RC-informed-soft had no failures and 77 readings above 100%, Naive 6× as many. Counts grow with the cluster and the trace: compare the arms' failure shares and their ratios of readings, not the counts.",
				Chart: groupedBars(ovs, "arm", "run_id", []string{"readings_over_100", "failures"}), Table: ovs, SQL: ovsSQL})
	}
	if len(t4.Rows) > 0 {
		// The chart shows each (dataset, metric, predictor)'s accuracy: the
		// view's bucket-0 rows.
		acc := &store.Result{Columns: t4.Columns}
		bc, dc, mc := analysis.Col(t4, "bucket"), analysis.Col(t4, "dataset"), analysis.Col(t4, "metric")
		for _, row := range t4.Rows {
			if analysis.Num(row[bc]) == 0 {
				r := append([]any(nil), row...)
				r[mc] = fmt.Sprintf("%v %v", row[dc], row[mc])
				acc.Rows = append(acc.Rows, r)
			}
		}
		p.Sections = append(p.Sections,
			report.Section{Title: "Predictions (Resource Central Table 4)",
				Note:  "The latest placelab predict evaluate of each dataset, metric and predictor, on the VMs created in the last third of the dataset's span of creation times (models learn from the first two thirds): each model beside the majority bucket and the subscription-history rule. Bucket 0 rows hold accuracy, P^θ and R^θ (θ = 0.6); the others each bucket's share, precision and recall. paper_* columns are RC's Table 4 (Azure's production VMs, 2017, trained on two months and tested on the third), set beside real-data model rows only; a synthetic trace gets none.",
				Chart: groupedBars(acc, "metric", "predictor", []string{"accuracy", "p_theta", "r_theta"}), Table: t4, MaxRows: 80, SQL: t4SQL})
	}
	if la, laSQL, err := view("lifetime_arms"); err != nil {
		return nil, err
	} else if len(la.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Lifetime-aware placement: the share of the oracle's gain",
				Note: "Stored placelab lifetime runs, one per arm and seed, as medians over the seeds with their ranges, per dataset and window (the window starts at the models' training cut unless in_sample): " +
					"time-weighted empty machines, their gain over off on the same seed, and that gain as a share of the same rule's gain on true lifetimes (oracle_gain_share: model of oracle, nilas of nilas-oracle, lava of lava-oracle) " +
					"and of the best oracle arm's (best_oracle_gain_share). Google's LAVA (MLSys 2025) reports, in production, 2.3–9.2 percentage points more empty hosts and about 3% less stranded CPU and 2% less stranded memory; " +
					"those are fleet figures of another scale, so no paper column is set beside these.",
				Chart: groupedBars(la, "arm", "dataset", []string{"oracle_gain_share_median", "best_oracle_gain_share_median"}), Table: la, SQL: laSQL})
	}
	if len(vio.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Violations on oversubscribed nodes (König et al. Fig 9)",
				Note:  "Stored placelab violation runs: mean violations per policy and tenant density on the same tenant sequences. König et al. §8.3 (40 nodes, 300 simulated hours, 20 repetitions): on average the best policy without probability-of-violation estimates had 2.57× PrV-WorstFit's violations on hardware spec 1 (80 vCores) and 2.1× on spec 2 (128).",
				Chart: violationChart(vio), Table: vio, SQL: vioSQL})
	}
	if len(pg.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Paragon: classification and interference-aware placement",
				Note:  "Stored placelab paragon runs. Classification: Table 1's metrics on an app × platform matrix beside predicting every app by the platform means. Scheduling: QoS share (apps at ≥ 95% of their performance alone on their best server) per scenario and policy; Paragon §5.2 and its abstract, 2,500 applications on 1,000 EC2 servers (low load): 91% with Paragon vs 14% / 11% / 3% with NH / NI / random.",
				Chart: groupedBars(pg, "scenario", "policy", []string{"qos_share", "mean_normalized_perf", "best_sc_accuracy", "within_5pct_accuracy"}), Table: pg, SQL: pgSQL})
	}
	if pgs, pgsSQL, err := view("paragon_seed_summary"); err != nil {
		return nil, err
	} else if len(pgs.Rows) > 0 {
		p.Sections = append(p.Sections,
			report.Section{Title: "Paragon: scheduling over seeds, beside the oracle",
				Note:  "Stored placelab paragon schedule runs, one per seed and policy: the median QoS share over the seeds with its range, per scenario, policy (oracle: the same greedy given the true scores, so the classifier's cost is its gap to paragon), D1 rule and interference model. Load is stated against usable capacity (usable_cores_median: cores on configurations within 5% of each arriving application's best). Paragon §5.2, 1,000 EC2 servers, one run per scenario: QoS for 91% (low), 61% (high), 52% (oversubscribed) with Paragon.",
				Chart: groupedBars(pgs, "scenario", "policy", []string{"qos_share_median", "qos_share_min", "qos_share_max"}), Table: pgs, SQL: pgsSQL})
	}
	return p, nil
}

// violationChart draws violations against density, one line per policy
// (the latest run of each policy and density).
func violationChart(r *store.Result) *charts.Line {
	pc, dc, vc := analysis.Col(r, "policy"), analysis.Col(r, "density"), analysis.Col(r, "violations")
	type key struct {
		p string
		d float64
	}
	latest := map[key]float64{}
	var pols []string
	seen := map[string]bool{}
	var ds []float64
	seenD := map[float64]bool{}
	for _, row := range r.Rows {
		p, d := fmt.Sprint(row[pc]), analysis.Num(row[dc])
		latest[key{p, d}] = analysis.Num(row[vc])
		if !seen[p] {
			seen[p] = true
			pols = append(pols, p)
		}
		if !seenD[d] {
			seenD[d] = true
			ds = append(ds, d)
		}
	}
	sort.Float64s(ds)
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "tenant density (over-subscription ratio)", Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Name: "mean violations (violations)"}), charts.WithAnimation(false))
	for _, p := range pols {
		var pts []opts.LineData
		for _, d := range ds {
			if v, ok := latest[key{p, d}]; ok {
				pts = append(pts, opts.LineData{Value: []float64{d, v}})
			}
		}
		line.AddSeries(p, pts)
	}
	return line
}

// groupedBars draws, for each row (labelled "x (run id)"), one bar per
// listed column, each unit on its own axis (report.UnitAxes: at most two).
func groupedBars(r *store.Result, xc, idc string, ycols []string) *charts.Bar {
	xi, ii := analysis.Col(r, xc), analysis.Col(r, idc)
	var xs []string
	for _, row := range r.Rows {
		xs = append(xs, fmt.Sprintf("%v (%v)", row[xi], row[ii]))
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}), charts.WithAnimation(false))
	axes, axis := report.UnitAxes(ycols)
	bar.SetGlobalOptions(charts.WithYAxisOpts(axes[0]))
	bar.ExtendYAxis(axes[1:]...)
	bar.SetXAxis(xs)
	for _, y := range ycols {
		yi := analysis.Col(r, y)
		items := make([]opts.BarData, len(r.Rows))
		for i, row := range r.Rows {
			items[i] = opts.BarData{Value: barValue(row[yi])}
		}
		bar.AddSeries(y, items, charts.WithBarChartOpts(opts.BarChart{YAxisIndex: axis[y]}))
	}
	return bar
}

// fleetPlansChart draws each plan's cost beside its baselines', one unit:
// $ per hour.
func fleetPlansChart(r *store.Result) *charts.Bar {
	return groupedBars(r, "dataset", "run_id", []string{"cost_per_hour", "karpenter_cost_per_hour", "best_single_cost_per_hour", "current_cost_per_hour"})
}

// barValue is a view value as a bar: NULL (no value, such as a share of
// no gain) is ECharts' missing datum "-", drawn as no bar rather than 0.
func barValue(x any) any {
	if x == nil {
		return "-"
	}
	return analysis.Num(x)
}

func dbName(db *store.DB) string {
	if db.Path() == "" || db.Path() == ":memory:" {
		return "an in-memory database"
	}
	return db.Path()
}

// The LP interval in the report: per run, the policy's packing density at
// each snapshot inside the band the LP proves for the same VMs.
const (
	// maxLPCharts caps the runs drawn with their interval (the latest).
	maxLPCharts = 6
	lpOnline    = "online: the policy's density"
	lpLB        = "LB: a packing this dense exists"
	lpUB        = "UB: no packing is denser"
	lpBand      = "interval" // the band between LB and UB, stacked on LB
	lpOnlineRGB = "#5470c6"
	lpBandRGB   = "#3ba272"
	lpNote      = "For each snapshot, placelab lpbound proves an interval for the VMs the run held then: no packing on the zone's machines is denser than the top of the green band (the configuration LP), and a packing found offline is as dense as its bottom, so the best packing lies inside the band. " +
		"The blue line is what the policy reached; the table gives the same in machines (emptiable = online − UB: machines the policy could have emptied) and how tight the interval is (interval_gap = (UB − LB) / LB on machines)."
)

// lpSections is the LP interval's part of the overview: the per-run table
// of lpbound_gap under the note that explains the band, then one chart per
// run (the latest maxLPCharts) with its means in words.
func lpSections(gap, lpd *store.Result, sql string) []report.Section {
	note := lpNote
	runs := gap.Rows
	if len(runs) > maxLPCharts {
		note += fmt.Sprintf(" Charts for the latest %d of the %d runs.", maxLPCharts, len(runs))
		runs = runs[len(runs)-maxLPCharts:]
	}
	secs := []report.Section{{Title: "How far from optimal packing: the LP interval", Note: note, Table: gap, SQL: sql}}
	ri, pi, di := analysis.Col(gap, "run_id"), analysis.Col(gap, "policy"), analysis.Col(gap, "dataset")
	for _, row := range runs {
		secs = append(secs, report.Section{
			Title: fmt.Sprintf("LP interval over time: run %v, %v on %v", row[ri], row[pi], row[di]),
			Note:  lpRunNote(gap, row), Chart: lpDensityChart(lpd, analysis.Num(row[ri]))})
	}
	return secs
}

// lpRunNote says a run's lpbound_gap row in words: machines held, the
// interval, machines that could have been emptied, snapshots converged.
func lpRunNote(gap *store.Result, row []any) string {
	f := func(c string) string {
		return strconv.FormatFloat(analysis.Num(row[analysis.Col(gap, c)]), 'f', -1, 64)
	}
	n, conv := analysis.Num(row[analysis.Col(gap, "snapshots")]), analysis.Num(row[analysis.Col(gap, "converged_snapshots")])
	s := fmt.Sprintf("Mean over %s %s with VMs: the policy held %s machines; no packing of the same VMs needs fewer than %s, and one found offline uses %s",
		f("snapshots"), analysis.Plural(int(n), "snapshot", "snapshots"), f("mean_online_machines"), f("mean_lb_machines"), f("mean_ub_machines"))
	if analysis.Num(row[analysis.Col(gap, "mean_emptiable_machines")]) > 0 {
		s += ", so " + f("mean_emptiable_machines") + " could have been emptied. "
	} else {
		s += ": none could have been emptied. "
	}
	if conv == n {
		return s + "Every snapshot's LPs converged."
	}
	return s + fmt.Sprintf("%s of %s snapshots converged; the others' bounds are valid but weaker.", f("converged_snapshots"), f("snapshots"))
}

// lpDensityChart draws one run's packing density over time inside its LP
// interval: LB as a line, the band UB − LB stacked on it and filled, UB as
// a line (so that the tooltip shows UB itself, not the band's width), the
// policy's density on top. The x axis is the run's snapshot hours as
// categories: ECharts stacks on y only over a category (or time) axis — on
// two value axes it stacks x. A snapshot without densities (no VMs) is a
// gap.
func lpDensityChart(d *store.Result, run float64) *charts.Line {
	rc, hc, oc := analysis.Col(d, "run_id"), analysis.Col(d, "hour"), analysis.Col(d, "online_density_pct")
	lc, uc := analysis.Col(d, "lb_density_pct"), analysis.Col(d, "ub_density_pct")
	var hours []string
	var online, lb, band, ub []opts.LineData
	for _, row := range d.Rows {
		if analysis.Num(row[rc]) != run {
			continue
		}
		hours = append(hours, strconv.FormatFloat(math.Round(analysis.Num(row[hc])*100)/100, 'f', -1, 64))
		if row[oc] == nil || row[lc] == nil || row[uc] == nil {
			for _, s := range []*[]opts.LineData{&online, &lb, &band, &ub} {
				*s = append(*s, opts.LineData{Value: "-"})
			}
			continue
		}
		o, l, u := analysis.Num(row[oc]), analysis.Num(row[lc]), analysis.Num(row[uc])
		online = append(online, opts.LineData{Value: o})
		lb = append(lb, opts.LineData{Value: l})
		band = append(band, opts.LineData{Value: math.Round((u-l)*1e3) / 1e3})
		ub = append(ub, opts.LineData{Value: u})
	}
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Data: []string{lpOnline, lpLB, lpUB}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "hour"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "packing density (%)", Scale: opts.Bool(true)}), charts.WithAnimation(false))
	line.SetXAxis(hours)
	style := func(color string, dashed bool) []charts.SeriesOpts {
		ls := opts.LineStyle{Color: color, Width: 1.5}
		if dashed {
			ls.Type = "dashed"
		}
		return []charts.SeriesOpts{charts.WithLineStyleOpts(ls), charts.WithItemStyleOpts(opts.ItemStyle{Color: color})}
	}
	noSymbol := func(stack string) charts.SeriesOpts {
		return charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: stack})
	}
	line.AddSeries(lpLB, lb, append(style(lpBandRGB, true), noSymbol("interval"))...)
	line.AddSeries(lpBand, band, noSymbol("interval"), charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: lpBandRGB, Opacity: opts.Float(0.3)}))
	line.AddSeries(lpUB, ub, append(style(lpBandRGB, false), noSymbol(""))...)
	line.AddSeries(lpOnline, online, append(style(lpOnlineRGB, false), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))...)
	line.Accept(lpChartVisitor{})
	return line
}

// lpChartVisitor sets the two options of the interval chart go-echarts
// v2.6.7 has no field for: the band series stays out of the axis tooltip
// (its value is UB − LB, not a density), and the legend does not toggle
// series (hiding LB would drop the band stacked on it to zero).
type lpChartVisitor struct {
	charts.BaseConfigurationVisitor
}

func (lpChartVisitor) VisitLegendOpt(l opts.Legend) any {
	return struct {
		opts.Legend
		SelectedMode bool `json:"selectedMode"`
	}{Legend: l}
}

func (lpChartVisitor) VisitSeriesOpt(ms charts.MultiSeries) any {
	type tip struct {
		Show bool `json:"show"`
	}
	out := make([]any, len(ms))
	for i, s := range ms {
		out[i] = s
		if s.Name == lpBand {
			out[i] = struct {
				charts.SingleSeries
				Tooltip tip `json:"tooltip"`
			}{SingleSeries: s}
		}
	}
	return out
}

// typeMixChart draws the percentage of VMs per type, one series per dataset,
// over the union of each dataset's top types.
func typeMixChart(mix *store.Result) *charts.Bar {
	ds, ty, pct := analysis.Col(mix, "dataset"), analysis.Col(mix, "vm_type"), analysis.Col(mix, "pct")
	var order []string
	seen := map[string]bool{}
	perDS := map[string]map[string]float64{}
	var dsOrder []string
	count := map[string]int{}
	for _, row := range mix.Rows {
		d, t := fmt.Sprint(row[ds]), fmt.Sprint(row[ty])
		if perDS[d] == nil {
			perDS[d] = map[string]float64{}
			dsOrder = append(dsOrder, d)
		}
		if count[d] < maxTypeBars {
			perDS[d][t] = analysis.Num(row[pct])
			if !seen[t] {
				seen[t] = true
				order = append(order, t)
			}
		} else {
			perDS[d]["other"] += analysis.Num(row[pct])
		}
		count[d]++
	}
	for _, d := range dsOrder {
		if _, ok := perDS[d]["other"]; ok && !seen["other"] {
			seen["other"] = true
			order = append(order, "other")
		}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Name: "share of VMs (%)"}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 45, Interval: "0"}}),
		charts.WithAnimation(false),
	)
	bar.SetXAxis(order)
	for _, d := range dsOrder {
		items := make([]opts.BarData, len(order))
		for i, t := range order {
			items[i] = opts.BarData{Value: analysis.Round2(perDS[d][t])}
		}
		bar.AddSeries(d, items)
	}
	return bar
}

// arrivalsChart draws arrivals per hour, one line per dataset.
func arrivalsChart(arr *store.Result) *charts.Line {
	ds, hr, n := analysis.Col(arr, "dataset"), analysis.Col(arr, "hour"), analysis.Col(arr, "arrivals")
	series := map[string][][2]float64{}
	var dsOrder []string
	maxHour := 0.0
	for _, row := range arr.Rows {
		d := fmt.Sprint(row[ds])
		if _, ok := series[d]; !ok {
			dsOrder = append(dsOrder, d)
		}
		h := analysis.Num(row[hr])
		series[d] = append(series[d], [2]float64{h, analysis.Num(row[n])})
		if h > maxHour {
			maxHour = h
		}
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "hour of the trace (h)", Max: maxHour}),
		charts.WithYAxisOpts(opts.YAxis{Name: "arrivals (VMs per hour)"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside"}, opts.DataZoom{Type: "slider"}),
		charts.WithAnimation(false),
	)
	for _, d := range dsOrder {
		items := make([]opts.LineData, len(series[d]))
		for i, p := range series[d] {
			items[i] = opts.LineData{Value: []float64{p[0], p[1]}}
		}
		line.AddSeries(d, items, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return line
}

// maxRunLines caps the runs drawn in the density chart.
const maxRunLines = 12

// densityChart draws packing density per run over time.
func densityChart(d *store.Result) *charts.Line {
	return runLineChart(d, "packing_density", "packing density (%)", 100)
}

// runLineChart draws column value (× scale) of d against its hour, one
// line per run of two samples or more (the latest maxRunLines), the y axis
// named yName.
func runLineChart(d *store.Result, value, yName string, scale float64) *charts.Line {
	rc, pc, dc, hc, vc := analysis.Col(d, "run_id"), analysis.Col(d, "policy"), analysis.Col(d, "dataset"), analysis.Col(d, "hour"), analysis.Col(d, value)
	type series struct {
		name string
		pts  []opts.LineData
	}
	var order []int64
	byRun := map[int64]*series{}
	for _, row := range d.Rows {
		id := int64(analysis.Num(row[rc]))
		s := byRun[id]
		if s == nil {
			s = &series{name: fmt.Sprintf("run %d %v (%v)", id, row[pc], row[dc])}
			byRun[id] = s
			order = append(order, id)
		}
		s.pts = append(s.pts, opts.LineData{Value: []float64{analysis.Round2(analysis.Num(row[hc])), analysis.Round2(scale * analysis.Num(row[vc]))}})
	}
	// A run of one sample (a packing or a plan at one instant) is no line
	// over time: it is in the runs' table.
	order = slices.DeleteFunc(order, func(id int64) bool { return len(byRun[id].pts) < 2 })
	if len(order) > maxRunLines {
		order = order[len(order)-maxRunLines:]
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "hour of the trace (h)"}),
		charts.WithYAxisOpts(opts.YAxis{Name: yName}),
		charts.WithAnimation(false),
	)
	for _, id := range order {
		s := byRun[id]
		line.AddSeries(s.name, s.pts, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
	return line
}

// clusterChart draws each cluster run's nodes with pods beside its LB and
// UB, in one unit: nodes.
func clusterChart(r *store.Result) *charts.Bar {
	return groupedBars(r, "policy", "run_id", []string{"nodes_with_pods", "lb_nodes", "ub_nodes"})
}
