package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// predict train, evaluate and models from the command line on a generated
// zone: the models are stored under their names, the evaluation's JSON
// carries Table 4's rows for the model and both baselines, the view
// rc_table4 holds them with no paper column (the data is synthetic), and
// out-of-range input is refused with the flag or value named.
func TestPredictCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.duckdb")
	mustRun(t, db, "--quiet", "generate", "--machines", "1000", "--vms", "6000", "--days", "4", "--load", "0.1", "--series", "0", "--dataset", "z")
	out := mustRun(t, db, "--quiet", "predict", "train", "--dataset", "z", "--metric", "lifetime,deploy_vms", "--rounds", "10", "--format", "json")
	var tr struct {
		Models []struct {
			Name      string `json:"name"`
			TrainRows int    `json:"train_rows"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(tr.Models) != 2 || tr.Models[0].Name != "z/lifetime/xgboost" || tr.Models[1].Name != "z/deploy_vms/xgboost" || tr.Models[0].TrainRows < 100 {
		t.Fatalf("%s", out)
	}
	if out := mustRun(t, db, "predict", "models"); !strings.Contains(out, "z/deploy_vms/xgboost") || !strings.Contains(out, "subscription") {
		t.Errorf("models:\n%s", out)
	}
	out = mustRun(t, db, "--quiet", "predict", "evaluate", "--dataset", "z", "--format", "json")
	var ev struct {
		RunID int64 `json:"run_id"`
		Rows  []struct {
			Metric    string   `json:"metric"`
			Predictor string   `json:"predictor"`
			Accuracy  *float64 `json:"accuracy"`
			Buckets   []struct {
				Share *float64 `json:"share"`
			} `json:"buckets"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(ev.Rows) != 6 || ev.Rows[1].Predictor != "majority" || ev.Rows[2].Predictor != "history" || ev.Rows[0].Accuracy == nil || len(ev.Rows[0].Buckets) != 4 {
		t.Fatalf("%s", out)
	}
	out = mustRun(t, db, "sql", "--format", "csv", "SELECT count(*), count(paper_accuracy) FROM rc_table4 WHERE dataset = 'z' AND bucket = 0")
	if !strings.Contains(out, "6,0") {
		t.Errorf("rc_table4 bucket-0 rows, paper values:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "train", "--dataset", "z", "--metric", "bogus"}, "bogus"},
		{[]string{"predict", "train", "--dataset", "z", "--train-share", "1"}, "train-share"},
		{[]string{"predict", "train", "--dataset", "z", "--approach", "svm"}, "svm"},
		{[]string{"predict", "train", "--dataset", "z", "--seed", "5000000000"}, "seed"},
		{[]string{"predict", "train", "--dataset", "nope"}, "nope"},
		{[]string{"predict", "evaluate", "--dataset", "z", "--metric", "avg_cpu"}, "z/avg_cpu/random-forest"},
	} {
		if _, err := run(t, db, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}

// predict train --metric lifetime_dist stores the survival model with its
// σ chosen from --sigma; predict survival prints its C-index beside the
// per-type Kaplan–Meier baseline, the calibration at 15 min, 1 h and 24 h
// and the bucket accuracies under snake_case JSON keys; a bad --sigma and
// a dataset without the model are refused, naming them.
func TestPredictSurvivalCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.duckdb")
	mustRun(t, db, "--quiet", "generate", "--machines", "1000", "--vms", "6000", "--days", "4", "--load", "0.1", "--series", "0", "--dataset", "z")
	out := mustRun(t, db, "--quiet", "predict", "train", "--dataset", "z", "--metric", "lifetime,lifetime_dist", "--rounds", "10", "--sigma", "1,2", "--half-life", "none,12h", "--format", "json")
	var tr struct {
		Models []struct {
			Name   string `json:"name"`
			Params struct {
				Objective string  `json:"objective"`
				Dist      string  `json:"aft_loss_distribution"`
				Scale     float64 `json:"aft_loss_distribution_scale"`
			} `json:"params"`
			Censored int     `json:"train_censored"`
			HalfLife float64 `json:"half_life_s"`
			Grid     []struct {
				Sigma    float64  `json:"sigma"`
				HalfLife float64  `json:"half_life_s"`
				LogLik   float64  `json:"validation_loglik"`
				Gain     *float64 `json:"validation_loglik_gain"`
				GainSE   *float64 `json:"validation_loglik_gain_se"`
			} `json:"sigma_grid"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(tr.Models) != 2 {
		t.Fatalf("%s", out)
	}
	m := tr.Models[1]
	if m.Name != "z/lifetime_dist/xgboost-aft" || m.Params.Objective != "survival:aft" || m.Params.Dist != "normal" ||
		(m.Params.Scale != 1 && m.Params.Scale != 2) || len(m.Grid) != 3 || m.Censored == 0 {
		t.Fatalf("%s", out)
	}
	// --half-life none,12h: σ searched with equal weights, then 12 h at the σ chosen.
	if g := m.Grid[2]; g.HalfLife != 43200 || g.Sigma != m.Params.Scale || g.Gain == nil || g.GainSE == nil ||
		m.Grid[0].Gain != nil || (m.HalfLife != 0 && m.HalfLife != 43200) {
		t.Errorf("half-life grid: %s", out)
	}
	if out := mustRun(t, db, "predict", "models"); !strings.Contains(out, "z/lifetime_dist/xgboost-aft") || !strings.Contains(out, "xgboost-aft") {
		t.Errorf("models:\n%s", out)
	}
	out = mustRun(t, db, "--quiet", "predict", "survival", "--dataset", "z", "--format", "json")
	var ev map[string]any
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"c_index", "c_index_km_by_type", "calibration", "bucket_accuracy", "bucket_accuracy_classifier",
		"bucket_accuracy_majority", "test_vms", "censored_test_vms", "sigma", "run_id", "followed_test_vms",
		"bucket_accuracy_followed", "bucket_accuracy_classifier_followed", "bucket_accuracy_majority_followed"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("survival JSON lacks %s:\n%s", k, out)
		}
	}
	cal, _ := ev["calibration"].([]any)
	if len(cal) != 3 || cal[0].(map[string]any)["horizon_s"] != 900.0 || cal[0].(map[string]any)["kaplan_meier"] == nil {
		t.Errorf("calibration: %v", ev["calibration"])
	}
	if c, _ := ev["c_index"].(float64); !(c > 0.5) || ev["bucket_accuracy_classifier"] == nil {
		t.Errorf("c_index %v, classifier accuracy %v", ev["c_index"], ev["bucket_accuracy_classifier"])
	}
	if out := mustRun(t, db, "--quiet", "predict", "survival", "--dataset", "z"); !strings.Contains(out, "C-index") || !strings.Contains(out, "Kaplan-Meier") {
		t.Errorf("table:\n%s", out)
	}
	mustRun(t, db, "--quiet", "generate", "--machines", "100", "--vms", "1000", "--days", "2", "--load", "0.1", "--series", "0", "--dataset", "y")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "train", "--dataset", "z", "--metric", "lifetime_dist", "--sigma", "1,0"}, "--sigma"},
		{[]string{"predict", "train", "--dataset", "z", "--metric", "lifetime_dist", "--half-life", "none,-1d"}, "--half-life"},
		{[]string{"predict", "train", "--dataset", "z", "--metric", "lifetime_dist", "--half-life", "0"}, "--half-life"},
		{[]string{"predict", "train", "--dataset", "z", "--metric", "lifetime_dist", "--half-life", "week"}, "--half-life"},
		{[]string{"predict", "train", "--dataset", "z", "--metric", "lifetime", "--approach", "xgboost-aft"}, "xgboost-aft"},
		{[]string{"predict", "survival", "--dataset", "y"}, "y/lifetime_dist/xgboost-aft"},
		{[]string{"predict", "evaluate", "--dataset", "z", "--metric", "lifetime_dist"}, "predict survival"},
	} {
		if _, err := run(t, db, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}
