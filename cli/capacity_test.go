package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCapacityRefuses: a target (rejection or heal) outside [0%, 100%),
// NaN, a bare number that could be a share or a percentage, an unknown
// scale or survive mode, a heal target with no failures to heal, a bad
// failure model, a setting the policy cannot honour, --no-explain (probes
// never explain) and an unknown dataset are one-line errors naming what is
// wrong.
func TestCapacityRefuses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-rejection", "100%"}, `--max-rejection "100%": want a percentage in [0%, 100%)`},
		{[]string{"--max-rejection", "-1%"}, `--max-rejection "-1%": want a percentage in [0%, 100%)`},
		{[]string{"--max-rejection", "NaN%"}, `--max-rejection "NaN%": want a percentage such as 0.1%`},
		{[]string{"--max-rejection", "Inf%"}, `--max-rejection "Inf%": want a percentage such as 0.1%`},
		{[]string{"--max-rejection", "0.1"}, `--max-rejection "0.1": write the percentage with its sign (0.1% or 10%)`},
		{[]string{"--max-rejection", "x"}, `--max-rejection "x": want a percentage such as 0.1%`},
		{[]string{"--scale", "linear"}, `--scale "linear": want mix or per-sku`},
		{[]string{"--policy", "bestfit", "--k", "4"}, "--k applies to Protean's rule engine; policy bestfit cannot honour it"},
		{[]string{"--policy", "nope"}, `policy "nope": want one of`},
		{[]string{"--time-limit", "-1s"}, "--time-limit -1s: want a duration ≥ 0"},
		{[]string{"--no-explain"}, "no-explain"},
		{[]string{"--dataset", "nope"}, `no such dataset: "nope"`},
		{[]string{"--survive", "zone"}, `--survive "zone": want none or rack`},
		{[]string{"--survive", "Rack"}, `--survive "Rack": want none or rack`},
		{[]string{"--max-heal-failure", "1%"}, "--max-heal-failure with --failures none and no --failure-file: there is nothing to heal"},
		{[]string{"--failures", "none", "--max-heal-failure", "0%"}, "there is nothing to heal"},
		{[]string{"--failures", "default", "--max-heal-failure", "NaN%"}, `--max-heal-failure "NaN%": want a percentage such as 0.1%`},
		{[]string{"--failures", "default", "--max-heal-failure", "-1%"}, `--max-heal-failure "-1%": want a percentage in [0%, 100%)`},
		{[]string{"--failures", "default", "--max-heal-failure", "0.5"}, `--max-heal-failure "0.5": write the percentage with its sign (0.5% or 50%)`},
		{[]string{"--failures", "machine-afr=x"}, `machine-afr: "x" is not a finite number`},
	} {
		_, err := run(t, db, append([]string{"capacity"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("placelab capacity %s: %v\nwant one line containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	for _, ok := range []string{"0", "0%", "0.1%", " 2.5 %", "99.9%"} {
		if _, err := parsePercent("max-rejection", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// TestCapacityJSON runs capacity on a small generated zone: the JSON has
// the documented keys, the answer's machines are the sum of its SKUs',
// every probe says whether it met the target, and the table prints the
// answer beside the bound.
func TestCapacityJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	mustRun(t, db, "generate", "--machines", "100", "--vms", "2000", "--days", "1", "--series", "0")
	out := mustRun(t, db, "capacity", "--max-rejection", "0.5%", "--time-limit", "300ms", "--format", "json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"dataset", "policy", "scale", "max_rejection", "vms", "allowed_rejections", "zone_machines", "zone_machines_per_sku",
		"machines", "machines_per_sku", "cores", "rejected", "rejection_rate", "evicted", "below_answer", "monotone", "notes",
		"peak_t_s", "peak_vms", "peak_cores", "lp_bound_machines", "lp_bound_cores", "lp_converged", "lp_stop", "floor_machines", "probes",
		"shed_vms", "shed_rate", "target_counts", "bisection_machines", "answer_id", "load_id"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	if rep["max_rejection"] != 0.005 || rep["scale"] != "mix" || rep["policy"] != "protean" || rep["vms"] != 2000.0 || rep["allowed_rejections"] != 10.0 {
		t.Errorf("head %v %v %v %v %v", rep["max_rejection"], rep["scale"], rep["policy"], rep["vms"], rep["allowed_rejections"])
	}
	per, _ := rep["machines_per_sku"].(map[string]any)
	total := 0.0
	for _, v := range per {
		total += v.(float64)
	}
	if len(per) != 4 || total != rep["machines"] || rep["machines"].(float64) < rep["floor_machines"].(float64) {
		t.Errorf("answer %v machines, per SKU %v, floor %v", rep["machines"], per, rep["floor_machines"])
	}
	probes, _ := rep["probes"].([]any)
	if len(probes) < 2 {
		t.Fatalf("probes %v", rep["probes"])
	}
	for _, p := range probes {
		p := p.(map[string]any)
		for _, k := range []string{"step", "machines", "machines_per_sku", "cores", "vms", "rejected", "rejection_rate", "met", "evicted", "seconds",
			"shed_vms", "shed_rate"} {
			if _, ok := p[k]; !ok {
				t.Errorf("probe %v has no %q", p, k)
			}
		}
		// The target counts every VM not served: rejected or evicted.
		shed := p["rejected"].(float64) + p["evicted"].(float64)
		if met := shed <= 10; p["met"] != met || p["shed_vms"] != shed || p["shed_rate"] != shed/2000 {
			t.Errorf("probe %v: met %v, want %v (shed %v)", p, p["met"], met, shed)
		}
	}
	if rep["target_counts"] != "shed" || rep["shed_vms"].(float64) > 10 {
		t.Errorf("target counts %v, shed %v of 10 allowed", rep["target_counts"], rep["shed_vms"])
	}
	// The answer is kept, as printed.
	stored := mustRun(t, db, "sql", fmt.Sprintf("SELECT machines, target_counts, answer->>'shed_vms' FROM capacity_answer WHERE id = %v", rep["answer_id"]), "--format", "csv")
	if want := fmt.Sprintf("%v,shed,%v", rep["machines"], rep["shed_vms"]); !strings.Contains(stored, want) {
		t.Errorf("stored answer %q, want %q", stored, want)
	}
	out = mustRun(t, db, "capacity", "--max-rejection", "0.5%", "--time-limit", "300ms", "--no-store")
	for _, want := range []string{fmt.Sprintf("protean needs %v machines for this trace", rep["machines"]), "not served (rejected, or evicted and never placed again)",
		fmt.Sprintf("no allocator can do with fewer than %v:", rep["lp_bound_machines"]), "met", "bisect"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestCapacityAvailabilityJSON: with failures and a heal target on a small
// generated zone, the JSON has the documented availability keys, on the
// report and on every probe; a probe's met is whether it met every target
// in force (met_targets ⊇ targets), its heal_failed is within the heal
// target exactly when met_targets says so; the answer is a probe that met
// them; the table has the heal and rack columns. --survive rack on this
// zone, whose clusters of one rack can never heal a rack failure, ends in
// one line naming them.
func TestCapacityAvailabilityJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	mustRun(t, db, "generate", "--machines", "100", "--vms", "2000", "--days", "1", "--series", "0")
	args := []string{"capacity", "--max-rejection", "0.5%", "--time-limit", "300ms", "--failures", "machine-afr=40,reboot-share=0,rack-afr=5",
		"--max-heal-failure", "0%"}
	out := mustRun(t, db, append(args, "--format", "json")...)
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"max_heal_failure", "survive", "targets", "failures", "heal_vms", "heal_failed", "heal_failure_rate",
		"machine_failures", "rack_failures", "peak_sample_t_s", "peak_sample_allocated_cores", "healable_rack_failures_pct"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	if rep["max_heal_failure"] != 0.0 || rep["survive"] != "none" || fmt.Sprint(rep["targets"]) != "[rejection heal_failure]" ||
		rep["failures"] != "machine-afr=40,reboot-share=0,rack-afr=5" {
		t.Errorf("head: max_heal_failure %v survive %v targets %v failures %v", rep["max_heal_failure"], rep["survive"], rep["targets"], rep["failures"])
	}
	answered := false
	for _, p := range rep["probes"].([]any) {
		p := p.(map[string]any)
		for _, k := range []string{"met_targets", "heal_vms", "heal_failed", "heal_failure_rate", "machine_failures", "rack_failures",
			"peak_sample_t_s", "peak_sample_allocated_cores", "healable_rack_failures_pct"} {
			if _, ok := p[k]; !ok {
				t.Errorf("probe %v has no %q", p, k)
			}
		}
		met := fmt.Sprint(p["met_targets"])
		healOK := p["heal_failed"].(float64) == 0
		if strings.Contains(met, "heal_failure") != healOK || strings.Contains(met, "rejection") != (p["rejected"].(float64) <= 10) ||
			p["met"] != (healOK && p["rejected"].(float64) <= 10) {
			t.Errorf("probe %v: met %v, met_targets %v", p["machines"], p["met"], met)
		}
		if p["machines"] == rep["machines"] && p["met"] == true && p["heal_failed"] == rep["heal_failed"] {
			answered = true
		}
	}
	if !answered {
		t.Errorf("the answer %v machines is no probe that met the targets", rep["machines"])
	}
	out = mustRun(t, db, args...)
	for _, want := range []string{"heal VMs", "heal failed", "racks healable at peak", "at most 0% of the VMs to heal not healed",
		fmt.Sprintf("protean needs %v machines for this trace", rep["machines"]), "and fails to heal 0 of the"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	_, err := run(t, db, "capacity", "--max-rejection", "0.5%", "--time-limit", "300ms", "--survive", "rack")
	if err == nil || !strings.Contains(err.Error(), "every rack failure healable at the peak") ||
		!strings.Contains(err.Error(), "clusters with one rack, which no rack failure there can heal in: c001,") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--survive rack on a zone of one-rack clusters: %v", err)
	}
}
