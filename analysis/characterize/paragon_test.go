package characterize

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"placelab/analysis/internal/testkit"
	"placelab/datasets"
	"placelab/internal/shareddata"
	"placelab/optimizer/paragon"
)

// TestParagonOnLumos is issue 19's first target on the real Lumos matrix
// (67 workloads of 18 Hadoop and Spark applications on 55 VM types):
// holding out one application (all its data sizes) at a time, the
// classifier profiling two platforms picks one within 5% of the best for
// at least 85% of the fully measured workloads, and does at least as well
// as the platform means on within 5% and within 10%. The run is
// reproducible, holds out 18 applications, and reports the repeat ceiling
// from the runs behind the cells.
func TestParagonOnLumos(t *testing.T) {
	p := shareddata.Path(t, "lumos-cloud-perf/lumos_runs.csv")
	ctx := context.Background()
	db := testkit.MemDB(t)
	if _, err := EvaluateClassification(ctx, db, "lumos", "lumos", DefaultClassifyOptions()); !errors.Is(err, ErrNoMatrix) {
		t.Fatalf("empty database: %v", err)
	}
	if _, err := datasets.Ingest(ctx, db, "lumos", []string{p}, datasets.Options{Dataset: "lumos"}); err != nil {
		t.Fatal(err)
	}
	o := DefaultClassifyOptions()
	two, err := EvaluateClassification(ctx, db, "lumos", "lumos", o)
	if err != nil {
		t.Fatal(err)
	}
	h, b := two.HeterogeneityMetrics, two.Baseline
	t.Logf("2 known, leave one application out: %+v\nplatform means: %+v\nrandom profile: %+v\nceiling: %+v", h, b, two.RandomProfile, two.Ceiling)
	if two.Holdout != "application" || two.Folds != 18 || two.Applications != 18 || h.Workloads != 54 || two.Columns != 55 {
		t.Errorf("holdout %s, %d folds, %d applications, %d workloads on %d platforms; want application, 18, 18, 54, 55",
			two.Holdout, two.Folds, two.Applications, h.Workloads, two.Columns)
	}
	if h.Within5 < 0.85 {
		t.Errorf("within 5%% of best %.3f, want ≥ 0.85", h.Within5)
	}
	if h.Within5 < b.Within5 || h.Within10 < b.Within10 {
		t.Errorf("within 5%%/10%% %.3f/%.3f below the platform means' %.3f/%.3f", h.Within5, h.Within10, b.Within5, b.Within10)
	}
	if c := two.Ceiling; c == nil || c.Comparisons == 0 || len(c.Campaigns) != 3 || !(c.Within5 > 0.5 && c.Within5 <= 1) {
		t.Errorf("repeat ceiling %+v, want one over three campaigns", c)
	}
	again, _ := EvaluateClassification(ctx, db, "lumos", "lumos", o)
	if two.HeterogeneityMetrics != again.HeterogeneityMetrics || two.RandomProfile != again.RandomProfile {
		t.Errorf("not reproducible:\n%+v\n%+v", two.HeterogeneityMetrics, again.HeterogeneityMetrics)
	}

	bad := DefaultClassifyOptions()
	bad.Folds = 1
	if _, err := EvaluateClassification(ctx, db, "lumos", "lumos", bad); err == nil {
		t.Error("one fold accepted")
	}
	bad = DefaultClassifyOptions()
	bad.Platform.Known = 55
	if _, err := EvaluateClassification(ctx, db, "lumos", "lumos", bad); err == nil {
		t.Error("profiling every platform accepted")
	}
	bad = DefaultClassifyOptions()
	bad.Folds = 5
	if _, err := EvaluateClassification(ctx, db, "lumos", "other", bad); err == nil {
		t.Error("folds across two datasets accepted")
	}
}

// TestParagonOnUnseenFamily is the second target, on a family the model
// has not seen: trained on the Hadoop workloads and evaluated on the Spark
// ones, and the other way round, the classifier's within-5% and within-10%
// rates are at least the platform means' with two profiled platforms, and
// its within-5% rate is higher with five.
func TestParagonOnUnseenFamily(t *testing.T) {
	src := shareddata.Path(t, "lumos-cloud-perf/lumos_runs.csv")
	ctx := context.Background()
	db := testkit.MemDB(t)
	for _, fam := range []string{"hadoop", "spark"} {
		path := filepath.Join(t.TempDir(), fam+".csv")
		writeFamily(t, src, path, fam)
		if _, err := datasets.Ingest(ctx, db, "lumos", []string{path}, datasets.Options{Dataset: fam}); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range [][2]string{{"hadoop", "spark"}, {"spark", "hadoop"}} {
		for _, k := range []int{2, 5} {
			o := DefaultClassifyOptions()
			o.Platform.Known = k
			rep, err := EvaluateClassification(ctx, db, dir[0], dir[1], o)
			if err != nil {
				t.Fatal(err)
			}
			h, b := rep.HeterogeneityMetrics, rep.Baseline
			t.Logf("%s → %s, %d known: profile %v; within 5%% %.3f (platform means %.3f), within 10%% %.3f (%.3f), best %.3f (%.3f)",
				dir[0], dir[1], k, rep.Profile, h.Within5, b.Within5, h.Within10, b.Within10, h.BestSC, b.BestSC)
			if rep.Holdout != "dataset" || len(rep.Profile) != k {
				t.Errorf("holdout %s, profile %v", rep.Holdout, rep.Profile)
			}
			if h.Within5 < b.Within5 || h.Within10 < b.Within10 {
				t.Errorf("%s → %s, %d known: within 5%%/10%% %.3f/%.3f below the platform means' %.3f/%.3f", dir[0], dir[1], k, h.Within5, h.Within10, b.Within5, b.Within10)
			}
			if k == 5 && !(h.Within5 > b.Within5) {
				t.Errorf("%s → %s, 5 known: within 5%% %.3f, not above the platform means' %.3f", dir[0], dir[1], h.Within5, b.Within5)
			}
		}
	}
}

// writeFamily copies the rows of one framework of the Lumos file to path
// (a temporary file: the data stays in ../shared/data).
func writeFamily(t *testing.T, src, path, family string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rows, err := csv.NewReader(in).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "framework" {
			col = i
		}
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.Write(rows[0])
	for _, r := range rows[1:] {
		if r[col] == family {
			w.Write(r)
		}
	}
	w.Flush()
	if err := errors.Join(w.Error(), out.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatCeiling checks the ceiling against a hand count on a fixture
// with whole-second times (a tie at the top), two campaigns and a cell
// that one repeat lacks.
//
// Campaign 1s, app w1, platforms a, b, c:
//
//	repeat 1: a 10, b 10, c 12    repeat 2: a 10, b 11, c 9
//
// 1 → 2: repeat 1 ties a and b at the top (each picked half the time):
// a is 10 against 2's best 9 (0.9: within 10%, not 5%), b 11 (0.818).
// So best 0, within 5% 0, within 10% 0.5. 2 → 1: c is fastest in 2; in 1
// it is 12 against 10 (0.833): 0, 0, 0.
// Campaign 5s, app w1: repeat 1: a 20, b 21; repeat 2: a 20 (b missing),
// so the pair has one common platform and is skipped.
// Campaign 5s, app w2: repeat 1: a 30, b 31; repeat 2: a 31, b 30.
// 1 → 2: a, 31 against 30 (0.968): within 5%, not best; 2 → 1 the same.
// Totals over 4 comparisons: best 0, within 5% 0.5, within 10% 0.625.
func TestRepeatCeiling(t *testing.T) {
	csvText := "provider,sar_interval,vm_type,workload_id,repeat,framework,workload,datasize,completed,elapsed_time_s\n" +
		"p,1s,a,w1,1,f,x,s,True,10\np,1s,b,w1,1,f,x,s,True,10\np,1s,c,w1,1,f,x,s,True,12\n" +
		"p,1s,a,w1,2,f,x,s,True,10\np,1s,b,w1,2,f,x,s,True,11\np,1s,c,w1,2,f,x,s,True,9\n" +
		"p,5s,a,w1,1,f,x,s,True,20\np,5s,b,w1,1,f,x,s,True,21\np,5s,a,w1,2,f,x,s,True,20\n" +
		"p,5s,c,w1,1,f,x,s,False,\n" +
		"p,5s,a,w2,1,f,y,s,True,30\np,5s,b,w2,1,f,y,s,True,31\np,5s,a,w2,2,f,y,s,True,31\np,5s,b,w2,2,f,y,s,True,30\n"
	path := filepath.Join(t.TempDir(), "runs.csv")
	if err := os.WriteFile(path, []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := testkit.MemDB(t)
	if _, err := datasets.Ingest(ctx, db, "lumos", []string{path}, datasets.Options{Dataset: "fx"}); err != nil {
		t.Fatal(err)
	}
	c, err := repeatCeiling(ctx, db, "fx", []string{"w1", "w2"})
	if err != nil || c == nil {
		t.Fatalf("ceiling %v, %v", c, err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if c.Comparisons != 4 || !near(c.BestSC, 0) || !near(c.Within5, 0.5) || !near(c.Within10, 0.625) {
		t.Errorf("ceiling %+v, want 4 comparisons, best 0, within 5%% 0.5, within 10%% 0.625", c)
	}
	if len(c.Campaigns) != 2 || c.Campaigns[0].Campaign != "1s" || c.Campaigns[0].Comparisons != 2 || !near(c.Campaigns[0].Within10, 0.25) ||
		c.Campaigns[1].Columns != 2 || !near(c.Campaigns[1].Within5, 1) {
		t.Errorf("campaigns %+v", c.Campaigns)
	}
	m, err := LoadAppMatrix(ctx, db, "fx")
	if err != nil {
		t.Fatal(err)
	}
	if m.Application[0] != "f_x" || m.Application[1] != "f_y" {
		t.Errorf("applications %v, want f_x, f_y", m.Application)
	}
	if c, _ := repeatCeiling(ctx, db, "fx", []string{"w3"}); c != nil {
		t.Errorf("ceiling of an app without runs: %+v", c)
	}
}

// TestSummaryFigures: a scenario run over seeds lands in run_metric as the
// median with its range per policy (qos_share policy=oracle beside
// qos_share_min and _max), the usable capacity, Table 1 and the gap.
func TestSummaryFigures(t *testing.T) {
	cfg, err := paragon.Scenario(paragon.ScenarioBurst)
	if err != nil {
		t.Fatal(err)
	}
	seeds, _ := paragon.Seeds(1, 3)
	s, err := paragon.SimulateSeeds(context.Background(), cfg, append(append([]string{}, paragon.Policies...), paragon.DiagnosticPolicies...), seeds, false)
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]float64{}
	for _, r := range SummaryFigures(s) {
		figs[r.Metric] = r.Value
	}
	for _, want := range []string{"qos_share policy=oracle", "qos_share_min policy=paragon", "qos_share_max policy=random",
		"usable_cores", "best_sc_accuracy", "rank_exact", "gap_oracle_minus_paragon", "ordered_seeds"} {
		if _, ok := figs[want]; !ok {
			t.Errorf("no figure %q", want)
		}
	}
	o := s.Policies[1]
	if o.Policy != paragon.PolicyOracle || figs["qos_share policy=oracle"] != o.QoSShare.Median ||
		figs["qos_share_min policy=oracle"] > figs["qos_share policy=oracle"] || figs["qos_share_max policy=oracle"] < figs["qos_share policy=oracle"] {
		t.Errorf("oracle figures %v, summary %+v", figs, o.QoSShare)
	}
	if figs["seeds"] != 3 || figs["usable_cores"] <= 0 || figs["usable_cores"] > figs["cores"] {
		t.Errorf("seeds %v, usable %v of %v cores", figs["seeds"], figs["usable_cores"], figs["cores"])
	}
}
