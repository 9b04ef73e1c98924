package experiments

import (
	"context"
	"errors"
	"placelab/analysis/characterize"
	"placelab/analysis/oversub"
	"placelab/analysis/replay"
	"time"

	"placelab/optimizer/paragon"
	"placelab/optimizer/violation"
	"placelab/predict"
	store "placelab/sql"
)

func init() {
	register(&Experiment{
		Name: "oversubscription", Title: "Prediction-informed CPU oversubscription: the arms",
		Reproduces: "Resource Central §6.2", FullTime: "about 5 minutes (7 arms, 5,000 machines, 14 days)",
		Points: func(quick bool) []Point {
			return grid([]axis{{"arm", vals(oversub.Arms...)}}, []uint64{1})
		},
		Paper: rc62,
		Run: func(ctx context.Context, _ *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
			cfg := zoneConfig(quick, p.Seed)
			cfg.SeriesVMs, cfg.Load = 300, 0.92
			if quick {
				cfg.SeriesVMs = 100
			}
			zdb, err := scratchZone(ctx, cfg)
			if err != nil {
				return nil, err
			}
			o := oversub.DefaultOptions()
			o.Arm, o.Seed = p.Params["arm"].(string), p.Seed
			if o.Arm == "rc-model" {
				// RC's models learn from earlier months: a P95 forest
				// trained on the zone's first two thirds (predict.Train).
				to := predict.DefaultTrainOptions("zone")
				to.Metrics, to.AllMetrics, to.Seed = []predict.Metric{predict.P95CPU}, false, p.Seed
				tr, err := predict.Train(ctx, zdb, to)
				if err != nil {
					return nil, err
				}
				tr.Close()
				pred, cut, c, err := oversub.P95Predictor(ctx, zdb, "zone", "")
				if err != nil {
					return nil, err
				}
				defer c.Close()
				o.Predict, o.ModelCut = pred, cut
			}
			r, err := oversub.Run(ctx, zdb, o.For("zone"))
			if err != nil {
				return nil, err
			}
			return r.Figures(), nil
		},
	})
	register(&Experiment{
		Name: "characterize", Title: "Workload characterization of every loaded dataset",
		Reproduces: "Protean §2, Resource Central §3", FullTime: "seconds per million VMs",
		Points:  func(bool) []Point { return []Point{{Index: 0, Params: map[string]any{}, Seed: 0}} },
		Timings: []string{"seconds_s"},
		Run: func(ctx context.Context, db *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
			t0 := time.Now()
			_, results, err := characterize.Run(ctx, db, "", nil)
			if err != nil {
				return nil, err
			}
			withRows := 0
			for _, r := range results {
				if len(r.Rows) > 0 {
					withRows++
				}
			}
			var datasets float64
			db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM dataset").Scan(&datasets)
			return []replay.MetricRow{fig("datasets", datasets), fig("views", float64(len(results))),
				fig("views_with_rows", float64(withRows)), fig("seconds_s", time.Since(t0).Seconds())}, nil
		},
	})
}

func init() {
	register(&Experiment{
		Name: "paragon", Title: "Paragon: QoS per scenario and policy (median and range over seeds, beside the oracle), classification accuracy",
		Reproduces: "Paragon Figs 4 and 9, Table 1", FullTime: "about 2 minutes (4 scenarios, 7 policies, 5 seeds)",
		Points: func(quick bool) []Point {
			return grid([]axis{{"scenario", vals(paragon.ScenarioLow, paragon.ScenarioHigh, paragon.ScenarioOversubscribed, paragon.ScenarioBurst, "classify-lumos")}}, []uint64{1})
		},
		Paper: append(append([]PaperValue{}, paragonFig9...), paragonTable1...),
		Run: func(ctx context.Context, db *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
			sc := p.Params["scenario"].(string)
			if sc == "classify-lumos" {
				o := characterize.DefaultClassifyOptions()
				o.Seed = p.Seed
				rep, err := characterize.EvaluateClassification(ctx, db, "lumos", "lumos", o)
				if errors.Is(err, characterize.ErrNoMatrix) {
					return []replay.MetricRow{fig("available", 0)}, nil // Lumos not loaded: nothing to measure
				}
				if err != nil {
					return nil, err
				}
				return append(rep.Figures(), fig("available", 1)), nil
			}
			cfg, err := paragonGridConfig(sc, quick)
			if err != nil {
				return nil, err
			}
			seeds, err := paragon.Seeds(p.Seed, paragon.DefaultSeeds)
			if err != nil {
				return nil, err
			}
			sum, err := paragon.SimulateSeeds(ctx, cfg, append(append([]string{}, paragon.Policies...), paragon.DiagnosticPolicies...), seeds, false)
			if err != nil {
				return nil, err
			}
			return characterize.SummaryFigures(sum), nil
		},
	})
}

// paragonGridScale is the quick grid's scale of the EC2 scenarios (the
// small-scale burst scenario runs at its own 40 servers in both grids).
const paragonGridScale = 0.1

// paragonGridConfig is the configuration a paragon grid point runs.
func paragonGridConfig(scenario string, quick bool) (paragon.ScenarioConfig, error) {
	cfg, err := paragon.Scenario(scenario)
	if err != nil {
		return cfg, err
	}
	if quick && scenario != paragon.ScenarioBurst {
		cfg = cfg.Scaled(paragonGridScale)
	}
	return cfg, nil
}

// bitbrainsDataset is the dataset name the violations grid reads Bitbrains
// demand curves from (placelab ingest gwa … --dataset bitbrains).
const bitbrainsDataset = "bitbrains"

func init() {
	register(&Experiment{
		Name: "violations", Title: "Violations per placement policy over tenant density",
		Reproduces: "König et al. Fig 9", FullTime: "about 40 minutes (5 densities, all policies, 40 nodes, 300 h, 20 seeds)",
		Points: func(quick bool) []Point {
			// Each curve set at densities where its baselines violate: the
			// synthetic curves from 0.9, Bitbrains (when loaded as dataset
			// "bitbrains") from 1.5, as in the paper's Fig 9.
			syn, bb := vals(0.9, 1.0, 1.1, 1.2, 1.3), vals(1.5, 2.0, 2.5)
			if quick {
				syn, bb = vals(1.0, 1.2), vals(2.0)
			}
			pts := grid([]axis{{"curves", vals("synthetic")}, {"density", syn}}, []uint64{1})
			for _, p := range grid([]axis{{"curves", vals(bitbrainsDataset)}, {"density", bb}}, []uint64{1}) {
				p.Index = len(pts)
				pts = append(pts, p)
			}
			return pts
		},
		Paper: konigFig9,
		Run: func(ctx context.Context, db *store.DB, p Point, quick bool) ([]replay.MetricRow, error) {
			sim := violation.DefaultSimConfig()
			dataset := ""
			if p.Params["curves"] == bitbrainsDataset {
				sim, dataset = oversub.DatasetSimConfig(), bitbrainsDataset
			}
			sim.Seed = p.Seed
			n := 2000
			if quick {
				sim.Nodes, sim.Hours, sim.Seeds, n = 20, 60, 2, 600
			}
			pts, err := oversub.ViolationSweep(ctx, db, oversub.ViolationOptions{Dataset: dataset, Synthetic: n, Policies: violation.PolicyNames(),
				Densities: []float64{p.Params["density"].(float64)}, Sim: sim})
			if errors.Is(err, oversub.ErrNoCurves) {
				return []replay.MetricRow{fig("available", 0)}, nil // Bitbrains not loaded: nothing to measure
			}
			if err != nil {
				return nil, err
			}
			var figs []replay.MetricRow
			for _, r := range pts[0].Result.Policies {
				figs = append(figs, fig("violations policy="+r.Policy, r.Violations), fig("failovers policy="+r.Policy, r.Failovers))
			}
			return append(figs, fig("best_baseline_violations", pts[0].BestViolations),
				fig("best_baseline_over_prv_worstfit", pts[0].Ratio)), nil
		},
	})
}
