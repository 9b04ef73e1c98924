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

	"placelab/analysis/characterize"
	"placelab/analysis/oversub"
	"placelab/analysis/replay"
	"placelab/analysis/report"
	"placelab/optimizer/paragon"
	"placelab/optimizer/violation"
	store "placelab/sql"
)

// headline lists the figures each experiment's chart shows.
var headline = map[string][]string{
	"buckets":           {"pd_pct", "lp_online_density_pct", "lp_lb_density_pct", "lp_ub_density_pct", "post_bestfit_pct", "conflicts_p99_per_min"},
	"inventory-scaling": {"latency_p99_us", "nocache_latency_p99_us", "memory_mb"},
	"agents":            {"burst_span_s", "conflicts_p99_per_s", "throughput_p99_per_s"},
	"violations":        {"violations policy=prv-worstfit", "violations policy=bestfit", "violations policy=worstfit"},
	"oversubscription":  {"readings_over_100", "failures", "oversubscribed_readings"},
	"paragon": {"qos_share policy=oracle", "qos_share policy=paragon", "qos_share policy=nh", "qos_share policy=ni", "qos_share policy=random",
		"within_5pct_accuracy", "baseline_within_5pct_accuracy", "ceiling_within_5pct_accuracy"},
	"characterize": {"views_with_rows", "datasets"},
	buffersName:    {"scaleout_failure_rate", "heal_failure_rate", "new_deployment_failure_rate", "utilization_mean", "cfr"},
}

// gridScale states the setting each grid of an experiment runs at, so that
// the page says at what scale our figures were measured. It reads the
// configurations the Run functions start from; the few values a Run sets
// inline are repeated here, marked "as Run sets".
func gridScale(name string, g Grid) string {
	quick := g == GridQuick
	zone := func(load float64) string {
		c := zoneConfig(quick, 1)
		if load == 0 {
			load = c.Load
		}
		return fmt.Sprintf("a synthetic zone of %s machines and %s VMs over %g days, %.0f%% allocated", thousands(c.Machines), thousands(c.VMs), c.Days, 100*load)
	}
	switch name {
	case "buckets":
		return zone(0) + "; packing density and candidates after BestFit from one agent, averaged over the whole trace; " +
			fmt.Sprintf("the LP interval on density at snapshots every %g h (lp_lb_density_pct: a packing this dense exists; lp_ub_density_pct: no packing is denser) ", lpEvery(quick)/3600) +
			"beside the policy's density at the same snapshots (lp_online_density_pct), each a mean over the snapshots with VMs"
	case "agents":
		return zone(0) + "; simulated time"
	case "inventory-scaling":
		return "a synthetic inventory of the point's number of machines"
	case "oversubscription":
		return zone(0.92) + ", CPU series from the generated VMs; 5-minute readings" // 0.92: as Run sets
	case "paragon":
		var parts []string
		for _, sc := range paragon.Scenarios {
			c, err := paragonGridConfig(sc, quick)
			if err != nil {
				return err.Error()
			}
			s := fmt.Sprintf("%s: %s servers of %d configurations, %s applications", sc, thousands(c.Servers), c.Configs, thousands(c.Apps))
			if c.Burst > 0 {
				s += fmt.Sprintf(" plus a burst of %s", thousands(c.Burst))
			}
			parts = append(parts, s+fmt.Sprintf(", load %g of usable capacity", c.Load))
		}
		return fmt.Sprintf("%s; every scheduling figure is the median over seeds %d–%d (_min and _max: the range), the policies paragon, oracle (the same greedy on the true scores), nh, ni and random, "+
			"with oracle-platform and oracle-interference (the oracle's halves) measuring what causes paragon's gap to the oracle (gap_… figures); "+
			"load is offered core demand at full speed over usable capacity (usable_cores: the cores on configurations within 5%% of each arriving application's best, by Hall's theorem; cores: all); "+
			"D1 is §3.2's minimum tolerated score and the slowdowns of the ten SoIs compound; best_sc_accuracy, within_5pct_accuracy, rank_exact and rank_90pct at a scenario point are Table 1's figures on its arrivals; "+
			"classify-lumos: the Lumos run times (67 workloads of 18 applications on 55 VM types) when loaded, "+
			"one application held out at a time, %d platforms profiled, within 5%% of the best beside the platform means and the repeat ceiling "+
			"(how often one repeat of the measurements agrees with another: best-platform accuracy above it is beyond what the data can tell apart)",
			strings.Join(parts, "; "), 1, paragon.DefaultSeeds, characterize.DefaultClassifyOptions().Platform.Known)
	case "violations":
		s := violation.DefaultSimConfig()
		if quick {
			s.Nodes, s.Hours, s.Seeds = 20, 60, 2 // as Run sets
		}
		d := oversub.DatasetSimConfig()
		return fmt.Sprintf("%d nodes, %g simulated hours, %d repetitions per point; curves=synthetic: synthetic tenants on hardware spec 1 (%g vCores); "+
			"curves=bitbrains: the Bitbrains Rnd VMs as tenants (when loaded as dataset bitbrains) on %g cores and %g GB; "+
			"best_baseline_over_prv_worstfit is the best policy without estimates over PrV-WorstFit, per curve set and density",
			s.Nodes, s.Hours, s.Seeds, s.Capacity[violation.CPU], d.Capacity[violation.CPU], d.Capacity[violation.Memory])
	case "characterize":
		return "every dataset loaded in the database"
	case buffersName:
		return zone(0) + fmt.Sprintf(", and %s's first %g days when loaded (points with available = 0 when not); Protean under the default failure model "+
			"with its machine and rack failure rates scaled by %d (failures: %s; at the default rates a quick zone sees about two machine failures "+
			"and healing never matters), %.0f%% of arrivals replayed as scale-outs (neither trace has scale-outs of its own); thresholds in percent "+
			"of a cluster's machines (empty healthy machines, rounded, on the trace's mean cluster), one varied at a time from new deployment %g%%, scale-out %g%%, healing %g%%",
			buffersTraceDataset, buffersWindow(quick)/86400, buffersFailureScale, buffersFailures(), 100*buffersScaleOutShare,
			buffersBase[0], buffersBase[1], buffersBase[2])
	}
	return ""
}

// pointResult is one grid point's latest stored run.
type pointResult struct {
	grid  Grid
	point int64
	label string
	seed  int64
	figs  map[string]float64
	// params are the run's parameters and samples its interval samples
	// (the buffers experiment's sample/… rows, at their trace time).
	params  map[string]any
	samples []replay.MetricRow
}

// gridOrder is the order grids appear in on the page.
func gridOrder(g Grid) int {
	switch g {
	case GridFull:
		return 0
	case GridQuick:
		return 1
	}
	return 2
}

// Page builds the experiments page: per experiment and grid (quick or
// full, never mixed), the latest stored figures of every grid point, a
// chart of its headline figures, the scale each grid ran at, and beside our
// figures the numbers the paper prints for the same quantity, with their
// source. The page needs no dataset: a section without stored runs says so.
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
	type key struct {
		exp   string
		grid  Grid
		point int64
	}
	keyOf := func(r []any) key {
		g, _ := r[ci["grid"]].(string)
		if g == "" {
			g = "unknown"
		}
		return key{r[ci["experiment"]].(string), Grid(g), toInt(r[ci["point"]])}
	}
	latest := map[key]int64{}
	for _, r := range res.Rows {
		k := keyOf(r)
		if id := toInt(r[ci["run_id"]]); id > latest[k] {
			latest[k] = id
		}
	}
	byExp := map[string]map[key]*pointResult{}
	for _, r := range res.Rows {
		k := keyOf(r)
		if toInt(r[ci["run_id"]]) != latest[k] {
			continue
		}
		if byExp[k.exp] == nil {
			byExp[k.exp] = map[key]*pointResult{}
		}
		pr := byExp[k.exp][k]
		if pr == nil {
			pr = &pointResult{grid: k.grid, point: k.point, label: pointLabel(r[ci["params"]].(string)),
				seed: toInt(r[ci["seed"]]), figs: map[string]float64{}}
			byExp[k.exp][k] = pr
		}
		if m := r[ci["metric"]].(string); isBuffersSample(m) {
			if v, ok := r[ci["value"]].(float64); ok {
				t, _ := r[ci["t_s"]].(float64)
				pr.samples = append(pr.samples, replay.MetricRow{T: t, Metric: m, Value: v})
			}
			continue
		}
		if pr.params == nil {
			json.Unmarshal([]byte(r[ci["params"]].(string)), &pr.params)
		}
		if v, ok := r[ci["value"]].(float64); ok {
			pr.figs[r[ci["metric"]].(string)] = v
		}
	}
	page := &report.Page{Title: "placelab — experiments", Subtitle: "The seeds' headline figures on placelab's data",
		Footer: "placelab experiment NAME|all [--quick] stores each grid point as a run (view experiment_results, column grid: quick or full); this page shows the latest run of every point of each grid, the quick and the full grid apart.",
		Links:  report.SiteLinks}
	for _, e := range All() {
		sec := report.Section{Title: fmt.Sprintf("%s — %s (%s)", e.Name, e.Title, e.Reproduces), SQL: q}
		var pts []*pointResult
		for _, pr := range byExp[e.Name] {
			pts = append(pts, pr)
		}
		if len(pts) == 0 {
			sec.Note = "No stored runs: placelab experiment " + e.Name + " [--quick]. Full grid: " + e.FullTime + "."
			page.Sections = append(page.Sections, sec)
			continue
		}
		sort.Slice(pts, func(i, j int) bool {
			if a, b := gridOrder(pts[i].grid), gridOrder(pts[j].grid); a != b {
				return a < b
			}
			return pts[i].point < pts[j].point
		})
		sec.Table = experimentTable(e, pts)
		sec.MaxRows = 400
		sec.Note = experimentNote(e, pts)
		if ch := experimentChart(e, pts); ch != nil {
			sec.Chart = ch
		}
		page.Sections = append(page.Sections, sec)
		if e.Name == buffersName {
			page.Sections = append(page.Sections, buffersSections(pts)...)
		}
	}
	return page, nil
}

// experimentTable lists every figure of every point, grid by grid, with the
// paper's number beside it where the paper prints one for that figure and
// point; then, per grid, the grid-level comparisons (ratios between points,
// means over points) the paper prints.
func experimentTable(e *Experiment, pts []*pointResult) *store.Result {
	t := &store.Result{Columns: []string{"grid", "point", "parameters", "seed", "figure", "placelab", "paper", "paper source"}}
	atPoint := map[[2]string]PaperValue{}
	for _, pv := range e.Paper {
		if pv.Point != "" && pv.Versus == "" {
			atPoint[[2]string{pv.Figure, pv.Point}] = pv
		}
	}
	var grids []Grid
	for i, pr := range pts {
		if i == 0 || pts[i-1].grid != pr.grid {
			grids = append(grids, pr.grid)
		}
		var names []string
		for m := range pr.figs {
			names = append(names, m)
		}
		sort.Strings(names)
		for _, m := range names {
			var pv, src any
			if v, ok := atPoint[[2]string{m, pr.label}]; ok {
				pv, src = v.Value, v.Source
			}
			t.Rows = append(t.Rows, []any{string(pr.grid), pr.point, pr.label, pr.seed, m, round4(pr.figs[m]), pv, src})
		}
	}
	for _, g := range grids {
		var in []*pointResult
		for _, pr := range pts {
			if pr.grid == g {
				in = append(in, pr)
			}
		}
		for _, pv := range e.Paper {
			if pv.Point != "" && pv.Versus == "" {
				continue
			}
			ours, label, ok := gridFigure(pv, in)
			if !ok {
				continue
			}
			var v any
			if !math.IsNaN(ours) {
				v = round4(ours)
			}
			t.Rows = append(t.Rows, []any{string(g), "all", label, nil, pv.Figure, v, pv.Value, pv.Source})
		}
	}
	return t
}

// undefined reports figures a point stores as 0 when they have no value:
// the violation experiment's ratio when PrV-WorstFit had no violations
// and the best other policy had some.
var undefined = map[string]func(figs map[string]float64) bool{
	"best_baseline_over_prv_worstfit": func(f map[string]float64) bool {
		return f["best_baseline_over_prv_worstfit"] == 0 && f["violations policy="+violation.NamePrVWorstFit] == 0
	},
}

// gridFigure computes our side of a grid-level paper value over the points
// of one grid: Figure at Point ÷ Figure at Versus, or the mean of Figure
// over the points. ok is false when the grid lacks the points (a shard);
// the value is NaN when it is undefined (a zero denominator, no point with
// a defined figure).
func gridFigure(pv PaperValue, in []*pointResult) (v float64, label string, ok bool) {
	if pv.Versus != "" {
		var a, b *pointResult
		for _, pr := range in {
			switch pr.label {
			case pv.Point:
				a = pr
			case pv.Versus:
				b = pr
			}
		}
		if a == nil || b == nil {
			return 0, "", false
		}
		x, okx := a.figs[pv.Figure]
		y, oky := b.figs[pv.Figure]
		if !okx || !oky {
			return 0, "", false
		}
		label = pv.Point + " ÷ " + pv.Versus
		if y == 0 {
			return math.NaN(), label, true
		}
		return x / y, label, true
	}
	var sum float64
	n, skipped := 0, 0
	for _, pr := range in {
		x, okx := pr.figs[pv.Figure]
		if !okx {
			continue
		}
		if u := undefined[pv.Figure]; u != nil && u(pr.figs) {
			skipped++
			continue
		}
		sum += x
		n++
	}
	if n+skipped == 0 {
		return 0, "", false
	}
	label = fmt.Sprintf("mean over %d points", n)
	if skipped > 0 {
		label += fmt.Sprintf(" (%d left out: undefined)", skipped)
	}
	if n == 0 {
		return math.NaN(), label, true
	}
	return sum / float64(n), label, true
}

// experimentNote says how many points of which grid are shown, at what
// scale each grid ran, where the paper's numbers come from and at what
// scale, and which of the paper's numbers are left out and why.
func experimentNote(e *Experiment, pts []*pointResult) string {
	count := map[Grid]int{}
	var grids []Grid
	for _, pr := range pts {
		if count[pr.grid] == 0 {
			grids = append(grids, pr.grid)
		}
		count[pr.grid]++
	}
	var b strings.Builder
	for i, g := range grids {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s grid: %d %s", g, count[g], plural(count[g], "point", "points"))
		if s := gridScale(e.Name, g); s != "" && g != "unknown" {
			fmt.Fprintf(&b, ", %s", s)
		}
		b.WriteString(".")
	}
	if len(grids) > 1 {
		b.WriteString(" Each grid's rows are its own runs; the grids are never averaged together.")
	}
	if count[GridFull] == 0 {
		fmt.Fprintf(&b, " Full grid: %s.", e.FullTime)
	}
	if len(e.Paper) == 0 {
		b.WriteString(" No paper column")
		if s := paperLeftOut[e.Name]; s != "" {
			b.WriteString(": " + s)
		}
		b.WriteString(".")
	} else {
		var srcs, scales []string
		seen := map[string]bool{}
		for _, pv := range e.Paper {
			if !seen[pv.Source] {
				seen[pv.Source] = true
				srcs = append(srcs, pv.Source)
			}
			if !seen["scale:"+pv.Scale] {
				seen["scale:"+pv.Scale] = true
				scales = append(scales, pv.Scale)
			}
		}
		fmt.Fprintf(&b, " Paper column: %s, measured on %s; only shares, rates and ratios, computed as the paper defines them, are set beside ours"+
			" (a ratio or mean of ours is shown as — when undefined: a zero denominator).", strings.Join(srcs, "; "), strings.Join(scales, "; "))
		if s := paperLeftOut[e.Name]; s != "" {
			b.WriteString(" Left out: " + s + ".")
		}
		if s := paperDiffers[e.Name]; s != "" {
			b.WriteString(" Where ours differ from the paper's, and why: " + s + ".")
		}
	}
	return b.String()
}

// experimentChart draws the headline figures per point (labelled with the
// grid), the paper's as translucent bars; nil if no headline figure is
// stored.
func experimentChart(e *Experiment, pts []*pointResult) *charts.Bar {
	if len(headline[e.Name]) == 0 {
		return nil
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 20, Interval: "0"}}), charts.WithAnimation(false))
	paper := map[[2]string]PaperValue{}
	for _, pv := range e.Paper {
		if pv.Point != "" && pv.Versus == "" {
			paper[[2]string{pv.Figure, pv.Point}] = pv
		}
	}
	var xs []string
	for _, pr := range pts {
		x := string(pr.grid)
		if pr.label != "" {
			x += " · " + pr.label
		}
		xs = append(xs, x)
	}
	bar.SetXAxis(xs)
	// One axis per unit: Table 5's densities (%) on the left, its conflicts
	// per minute on the right, never on one axis.
	axes, axis := report.UnitAxes(headline[e.Name])
	bar.SetGlobalOptions(charts.WithYAxisOpts(axes[0]), charts.WithGridOpts(opts.Grid{Top: "90"})) // room for a legend of two lines above the axis names
	bar.ExtendYAxis(axes[1:]...)
	series := 0
	for _, m := range headline[e.Name] {
		onAxis := charts.WithBarChartOpts(opts.BarChart{YAxisIndex: axis[m]})
		items := make([]opts.BarData, len(pts))
		var pitems []opts.BarData
		stored, hasPaper := false, false
		for i, pr := range pts {
			v, ok := pr.figs[m]
			stored = stored || ok
			items[i] = opts.BarData{Value: round4(v)}
			pv, okp := paper[[2]string{m, pr.label}]
			hasPaper = hasPaper || okp
			if okp {
				pitems = append(pitems, opts.BarData{Value: pv.Value})
			} else {
				pitems = append(pitems, opts.BarData{Value: nil})
			}
		}
		if !stored {
			continue
		}
		bar.AddSeries(m, items, onAxis)
		series++
		if hasPaper {
			bar.AddSeries(m+" (paper)", pitems, onAxis, charts.WithItemStyleOpts(opts.ItemStyle{Opacity: opts.Float(0.4)}))
		}
	}
	if series == 0 {
		return nil
	}
	return bar
}

// pointLabel turns a run's params JSON into "k=v k=v" (sorted, without the
// keys Run sets itself: point and grid, and the legacy quick).
func pointLabel(params string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(params), &m); err != nil {
		return params
	}
	var parts []string
	for k, v := range m {
		if k == paramPoint || k == paramGrid || k == "quick" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thousands prints n with thousands separators (12,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// buffersSections are the buffers experiment's charts beside its table:
// the slides' three plots against the threshold (scale-out failure rate,
// healing failure rate, utilization; one line per trace, grid and sweep,
// each threshold in percent of a cluster's machines), the slides'
// "utilization vs. empty nodes" as a scatter of interval samples, and
// Protean §6.3's limits raised by 1% against the four-nines CFR target.
func buffersSections(pts []*pointResult) []report.Section {
	var out []report.Section
	title := func(s string) string { return buffersName + " — " + s }
	for _, c := range []struct{ figure, title, axis, note string }{
		{"scaleout_failure_rate", "scale-out failure rate against the threshold", "scale-out failure rate (share of scale-out VMs)",
			"The slides' \"Scale-Out Failure Rate\": scale-out VMs refused ÷ scale-out VMs requested."},
		{"heal_failure_rate", "healing failure rate against the threshold", "healing failure rate (share of VMs to heal)",
			"The slides' \"Healing Failure Rate\": VMs of hard-failed machines and racks not healed ÷ VMs to heal. " +
				"The healing buffer (empty machines only healing may take) is scale-out − healing: raising the scale-out " +
				"threshold grows it, raising the healing threshold shrinks it."},
		{"utilization_mean", "utilization against the threshold", "utilization (share of cores allocated)",
			"The slides' \"Utilization\": allocated cores ÷ all cores, the mean of the interval samples."},
	} {
		if ch := buffersLine(pts, c.figure, c.axis); ch != nil {
			out = append(out, report.Section{Title: title(c.title), Chart: ch,
				Note: c.note + " One line per trace, grid and swept threshold; the other two thresholds stay at the base."})
		}
	}
	if ch := buffersScatter(pts); ch != nil {
		out = append(out, report.Section{Title: title("utilization against empty machines"), Chart: ch,
			Note: "The slides' \"Utilization vs. Empty Nodes\": every stored interval sample of every point, utilization against empty healthy " +
				"machines per cluster, colored by the share of single-machine failures whose VMs could all be healed in their cluster " +
				"(healable_machine_failures_pct). At one utilization some samples can heal every machine failure and some cannot: " +
				"utilization alone does not say whether a cluster can heal; the empty machines do."})
	}
	if t := buffersLimits(pts); t != nil {
		out = append(out, report.Section{Title: title("Protean §6.3: limits raised by 1%"), Table: t,
			Note: fmt.Sprintf("Protean §6.3: \"we increased the utilization limits in each cluster by 1%%\" in IsClusterBelowLimit. "+
				"As empty-machine buffers: each threshold lowered by round(1%% × machines per cluster) (limit_step, at least 1), from the base. "+
				"CFR (VMs placed ÷ VMs requested, heals included) against the paper's target of four nines (%g): %q", CFRTarget, cfrTargetQuote)})
	}
	return out
}

// buffersLine draws figure against the swept threshold, one line per
// trace, grid and sweep; nil when no point of a sweep stores it.
func buffersLine(pts []*pointResult, figure, axis string) *charts.Line {
	type key struct{ grid, trace, sweep string }
	lines := map[key][][2]float64{}
	var keys []key
	for _, pr := range pts {
		sw, _ := pr.params["sweep"].(string)
		thr, ok := pr.params["threshold_pct"].(float64)
		v, okv := pr.figs[figure]
		if !ok || !okv || pr.figs["available"] == 0 {
			continue
		}
		tr, _ := pr.params["trace"].(string)
		k := key{string(pr.grid), tr, sw}
		if lines[k] == nil {
			keys = append(keys, k)
		}
		lines[k] = append(lines[k], [2]float64{thr, v})
	}
	if len(keys) == 0 {
		return nil
	}
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "threshold (% of a cluster's machines kept empty)"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: axis, Scale: opts.Bool(true)}), charts.WithAnimation(false))
	for _, k := range keys {
		xy := lines[k]
		sort.Slice(xy, func(i, j int) bool { return xy[i][0] < xy[j][0] })
		var data []opts.LineData
		for _, p := range xy {
			data = append(data, opts.LineData{Value: []float64{p[0], round4(p[1])}})
		}
		line.AddSeries(fmt.Sprintf("%s · %s · %s threshold", k.grid, k.trace, strings.ReplaceAll(k.sweep, "_", "-")), data)
	}
	return line
}

// buffersScatter draws the interval samples: utilization against empty
// healthy machines per cluster, colored by healable_machine_failures_pct;
// one series per trace and grid. nil without samples.
func buffersScatter(pts []*pointResult) *charts.Scatter {
	type key struct{ grid, trace string }
	series := map[key][]opts.ScatterData{}
	var keys []key
	for _, pr := range pts {
		byT := map[float64]*[3]float64{}
		var ts []float64
		for _, s := range pr.samples {
			v := byT[s.T]
			if v == nil {
				v = &[3]float64{math.NaN(), math.NaN(), math.NaN()}
				byT[s.T] = v
				ts = append(ts, s.T)
			}
			switch strings.TrimPrefix(s.Metric, buffersSamplePrefix) {
			case sampleEmpty:
				v[0] = s.Value
			case sampleUtilization:
				v[1] = s.Value
			case sampleHealable:
				v[2] = s.Value
			}
		}
		sort.Float64s(ts)
		tr, _ := pr.params["trace"].(string)
		k := key{string(pr.grid), tr}
		for _, t := range ts {
			v := byT[t]
			if math.IsNaN(v[0]) || math.IsNaN(v[1]) || math.IsNaN(v[2]) {
				continue
			}
			if series[k] == nil {
				keys = append(keys, k)
			}
			series[k] = append(series[k], opts.ScatterData{Value: []float64{round4(v[0]), round4(v[1]), round4(v[2])}})
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sc := charts.NewScatter()
	sc.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "empty healthy machines per cluster (machines)"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "utilization (share of cores allocated)", Scale: opts.Bool(true)}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: 0, Max: 100, Dimension: "2",
			Text:    []string{"healable machine failures 100%", "0%"},
			InRange: &opts.VisualMapInRange{Color: []string{"#d73027", "#fee08b", "#1a9850"}}}),
		charts.WithAnimation(false))
	for _, k := range keys {
		sc.AddSeries(k.grid+" · "+k.trace, series[k])
	}
	return sc
}

// buffersLimits is the §6.3 pair per trace and grid: the base and the
// raised limits' thresholds, utilization (and its change in percentage
// points), CFR and whether it meets CFRTarget. nil without the pair.
func buffersLimits(pts []*pointResult) *store.Result {
	type key struct{ grid, trace string }
	pairs := map[key][2]*pointResult{}
	var keys []key
	for _, pr := range pts {
		if pr.params["sweep"] != SweepLimits || pr.figs["available"] == 0 {
			continue
		}
		tr, _ := pr.params["trace"].(string)
		k := key{string(pr.grid), tr}
		p, seen := pairs[k]
		if !seen {
			keys = append(keys, k)
		}
		if pr.params["limits"] == LimitsRaised {
			p[1] = pr
		} else {
			p[0] = pr
		}
		pairs[k] = p
	}
	t := &store.Result{Columns: []string{"grid", "trace", "limits", "limit_step", "new_deployment", "scale_out", "healing",
		"utilization_mean", "utilization_change_pct_points", "cfr", "cfr_target", "cfr_meets_target", "heal_failure_rate", "scaleout_failure_rate"}}
	for _, k := range keys {
		p := pairs[k]
		for i, pr := range p {
			if pr == nil {
				continue
			}
			var change any
			if i == 1 && p[0] != nil {
				change = round4(100 * (pr.figs["utilization_mean"] - p[0].figs["utilization_mean"]))
			}
			f := pr.figs
			t.Rows = append(t.Rows, []any{k.grid, k.trace, pr.params["limits"], f["limit_step"], f["new_deployment"], f["scale_out"], f["healing"],
				round4(f["utilization_mean"]), change, round4(f["cfr"]), CFRTarget, f["cfr"] >= CFRTarget,
				round4(f["heal_failure_rate"]), round4(f["scaleout_failure_rate"])})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}
