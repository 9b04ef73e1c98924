package store

import (
	"context"
	"math"
	"math/big"
	"testing"
)

// leakDataset is a trace where any leak of the future into a VM's features
// changes the answer. Subscription s (tenants t0, t1), subscription x:
//
//	vm  tenant sub start  end     lifetime bucket
//	v0  t0     s       0    100   1 (100 s)
//	v1  t0     s      50  10000   3 (2.8 h)
//	v2  t1     s     100    200   1 — created the moment v0 ends
//	v3  t1     s     150   NULL   censored, seen alive until 100,000 s
//	v4  t1     s   20000  20100   1
//	v5  u0     x       0     10   1 — another subscription
func leakDataset(t *testing.T, db *DB, censorRow bool) {
	t.Helper()
	_, err := db.Ingest(context.Background(), IngestInfo{Dataset: "leak", Format: "test", Source: "hand"}, func(w *Writer) error {
		if err := w.Append("vm_type", "c2", nil, 2.0, 4.0, nil, nil, nil, nil); err != nil {
			return err
		}
		if err := w.Append("vm_type", "c8", nil, 8.0, 32.0, nil, nil, nil, nil); err != nil {
			return err
		}
		vms := []struct {
			tenant, sub, typ string
			start            float64
			end              any
			p95              float64
		}{
			{"t0", "s", "c2", 0, 100.0, 10},
			{"t0", "s", "c8", 50, 10000.0, 90},
			{"t1", "s", "c2", 100, 200.0, 30},
			{"t1", "s", "c2", 150, nil, 60},
			{"t1", "s", "c8", 20000, 20100.0, 10},
			{"u0", "x", "c2", 0, 10.0, 95},
		}
		for i, v := range vms {
			if err := w.Append("vm", int64(i), "v"+string(rune('0'+i)), v.tenant, v.sub, v.typ, int16(0),
				v.start, v.end, nil, v.p95/2, nil, v.p95, nil); err != nil {
				return err
			}
		}
		if censorRow {
			return w.Append("vm_censor", int64(3), 100000.0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rowsByVM(t *testing.T, db *DB, q string, args ...any) map[int64]map[string]any {
	t.Helper()
	res, err := db.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]map[string]any{}
	for _, r := range res.Rows {
		m := map[string]any{}
		var id int64
		for j, c := range res.Columns {
			m[c] = r[j]
			if c == "vm_id" {
				id = r[j].(int64)
			}
		}
		out[id] = m
	}
	return out
}

func num(v any) float64 {
	if b, ok := v.(*big.Int); ok { // HUGEINT sums
		f, _ := new(big.Float).SetInt(b).Float64()
		return f
	}
	switch x := v.(type) {
	case nil:
		return math.NaN()
	case float64:
		return x
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	}
	return math.Inf(-1) // a type the test does not expect: never equal

}

// TestRCFeaturesNoLeak checks each VM's history features count only what
// its creation could know: VMs that finished strictly before it (never a
// running VM's future lifetime or CPU), deployments at their size to date
// (never their final size), and nothing of other subscriptions.
func TestRCFeaturesNoLeak(t *testing.T) {
	db := openMem(t)
	leakDataset(t, db, true)
	f := rowsByVM(t, db, "SELECT * FROM rc_features WHERE dataset = 'leak'")
	check := func(vm int64, col string, want float64) {
		t.Helper()
		got := num(f[vm][col])
		if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > 1e-9 {
			t.Errorf("v%d %s = %v, want %v", vm, col, got, want)
		}
	}
	nan := math.NaN()
	if f[0]["entity_kind"] != "subscription" || f[0]["entity"] != "s" {
		t.Errorf("entity %v %v", f[0]["entity_kind"], f[0]["entity"])
	}
	// v0 and v5 start at 0 with no history (v5's own sub x has none either).
	check(0, "hist_lifetime_n", 0)
	check(0, "hist_lifetime_1", nan)
	check(5, "hist_lifetime_n", 0)
	// v2 is created the moment v0 ends: v0 has not finished before it.
	check(2, "hist_lifetime_n", 0)
	check(2, "hist_p95_cpu_n", 0)
	// v3: v0 finished (bucket 1); v1 still runs, its lifetime (bucket 3)
	// and P95 (bucket 4) are the future; x's v5 is another subscription.
	check(3, "hist_lifetime_n", 1)
	check(3, "hist_lifetime_1", 1)
	check(3, "hist_lifetime_3", 0)
	check(3, "hist_p95_cpu_1", 1)
	check(3, "hist_p95_cpu_4", 0)
	// v4: v0, v2 (bucket 1) and v1 (bucket 3) have finished; v3 never does.
	check(4, "hist_lifetime_n", 3)
	check(4, "hist_lifetime_1", 2.0/3)
	check(4, "hist_lifetime_3", 1.0/3)
	check(4, "hist_p95_cpu_2", 1.0/3)
	// Deployments to date at v3 (arrivals strictly before 150): t0 has 2
	// VMs (bucket 2), t1 has 1 (bucket 1) — its final size, 3, is the future.
	check(3, "hist_deploy_vms_n", 2)
	check(3, "hist_deploy_vms_1", 0.5)
	check(3, "hist_deploy_vms_2", 0.5)
	// Cores to date at v3: t0 2+8 = 10 (bucket 2), t1 2 (bucket 2).
	check(3, "hist_deploy_cores_2", 1)
	// At v1 (t = 50): only t0 with v0, 1 VM and 2 cores.
	check(1, "hist_deploy_vms_1", 1)
	check(1, "hist_deploy_cores_2", 1)
	// The VM's deployment so far and its subscription's VMs to date.
	check(4, "deployment_vms_so_far", 2)
	check(4, "deployment_cores_so_far", 4)
	check(1, "deployment_vms_so_far", 1)
	check(4, "entity_vms_to_date", 4)
	check(3, "entity_vms_to_date", 3)
	check(5, "entity_vms_to_date", 0)
	check(4, "cores", 8)
	check(4, "hour_of_day", 5) // 20,000 s
}

// TestRCLabelsCensoring checks rc_labels as known at a time: VMs running
// then, and right-censored VMs, are "longer than their age", never finished.
func TestRCLabelsCensoring(t *testing.T) {
	q := MustQuery("rc_labels")
	for _, censorRow := range []bool{true, false} {
		db := openMem(t)
		leakDataset(t, db, censorRow)
		all := rowsByVM(t, db, q, "leak", math.Inf(1))
		// v3 never ends: seen alive until 100,000 s it is known to exceed
		// 24 h; without that row only until the last event (20,100 s), so
		// its bucket is unknown and its age is reported.
		if censorRow {
			if num(all[3]["lifetime"]) != 4 || !math.IsNaN(num(all[3]["censored_age_s"])) {
				t.Errorf("censored v3 with observed_s: %v", all[3])
			}
		} else if !math.IsNaN(num(all[3]["lifetime"])) || num(all[3]["censored_age_s"]) != 20100-150 {
			t.Errorf("censored v3 without observed_s: %v", all[3])
		}
		if num(all[1]["lifetime"]) != 3 || num(all[1]["p95_cpu"]) != 4 || num(all[0]["deploy_vms"]) != 2 || num(all[2]["deploy_cores"]) != 3 {
			t.Errorf("labels at +inf: %v %v %v", all[0], all[1], all[2])
		}
		// At 120 s v1 (ends 10,000) and v2 (ends 200) still run: unknown.
		at := rowsByVM(t, db, q, "leak", 120.0)
		if num(at[0]["lifetime"]) != 1 || !math.IsNaN(num(at[1]["lifetime"])) || !math.IsNaN(num(at[2]["lifetime"])) {
			t.Errorf("lifetimes at 120 s: %v %v %v", at[0]["lifetime"], at[1]["lifetime"], at[2]["lifetime"])
		}
		if !math.IsNaN(num(at[1]["p95_cpu"])) || num(at[0]["p95_cpu"]) != 1 {
			t.Errorf("CPU labels at 120 s: %v %v", at[0]["p95_cpu"], at[1]["p95_cpu"])
		}
		if num(at[1]["censored_age_s"]) != 70 {
			t.Errorf("v1's age at 120 s: %v", at[1]["censored_age_s"])
		}
		// t1 had one VM of 2 cores by 120 s (12 cores in the end).
		if num(at[2]["deploy_vms"]) != 1 || num(at[2]["deploy_cores"]) != 2 {
			t.Errorf("t1 at 120 s: %v", at[2])
		}
	}
}
