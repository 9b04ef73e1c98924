package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestMaxRejectsHint: an ingest error suggests --max-rejects only
// where it applies (issue 52 item 8: every error suggested it, and ingest
// placelab then refused it): a bad row of a format that skips rows does;
// ingest placelab's bad row, an inventory file's bad row and a missing
// column do not. Each names the file, the row and the field.
func TestIngestMaxRejectsHint(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.duckdb")
	fleet := write(t, dir, "fleet.csv", "name,cluster,rack,sku,cores,memory_gb\nm1,c1,r1,small,8,32\n")
	var big strings.Builder
	big.WriteString("id,tenant,cores,memory_gb,start_s,end_s,machine\n")
	for i := 0; i < 5000; i++ {
		if i == 2500 {
			big.WriteString("vm-short,web,4,16\n") // line 2502
			continue
		}
		fmt.Fprintf(&big, "vm%d,web,1,1,%d,,\n", i, i)
	}
	const hint = "--max-rejects"
	for _, c := range []struct {
		name     string
		args     []string
		want     string
		withHint bool
	}{
		{"huawei bad row", []string{"huawei", write(t, dir, "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,1\n1,4,x,0,1\n"), "--inventory", "synthetic:4"},
			"hw.csv: row 3: field mem", true},
		{"huawei missing column", []string{"huawei", write(t, dir, "hw2.csv", "vmid,cpu,at,lt\n0,4,0,1\n"), "--inventory", "synthetic:4"},
			"field mem", false},
		{"placelab short row of 5,000", []string{"placelab", write(t, dir, "vms.csv", big.String()), "--inventory", fleet},
			"vms.csv: row 2502 (its line in the file; the header is line 1): field start_s: missing field", false},
		{"placelab bad value", []string{"placelab", write(t, dir, "vms2.csv", "id,tenant,cores,memory_gb,start_s\na,web,1,1,0\nb,web,1,lots,0\n"), "--inventory", fleet},
			"vms2.csv: row 3 (its line in the file; the header is line 1): field memory_gb: not a number", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, db, append([]string{"ingest"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), hint) != c.withHint {
				t.Fatalf("err = %v, want it to contain %q, with the %s hint: %v", err, c.want, hint, c.withHint)
			}
		})
	}
}

// TestIngestWarningsPrinted: ingest placelab prints its warnings with the
// file, row and names, and its JSON keeps its keys and gives them under
// warnings with row and count; check names the machine, its SKU's
// capacity, the load and the VMs on it (it said "machine 0: cores at
// 125.0%", issue 52 item 7).
func TestIngestWarningsPrinted(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.duckdb")
	fleet := write(t, dir, "fleet.csv", "name,cluster,rack,sku,cores,memory_gb,health\neast-m1,c1,r1,small,8,32,\neast-m2,c1,r1,small,8,32,offline\n")
	vms := write(t, dir, "vms.csv", "id,tenant,cores,memory_gb,start_s,end_s,machine\n"+
		"web-1,web,4,16,0,,east-m1\nweb-2,web,6,16,0,,east-m1\nhuge,db,64,16,0,,\nidle,web,0,16,0,,east-m2\n")
	out := mustRun(t, db, "ingest", "placelab", vms, "--inventory", fleet, "--dataset", "mine")
	for _, want := range []string{
		"warning vm-fits-no-sku: " + vms + ": row 4: VM huge: 1 VM fits no SKU",
		"warning vm-zero-cores: " + vms + ": row 5: VM idle:",
		"warning vm-on-unhealthy-machine: " + vms + ": row 5: VM idle: 1 VM is recorded on machines the inventory marks offline or unhealthy: idle (row 5) on east-m2 (offline)",
		"warning machine-over-capacity: " + vms + ": row 3: machine east-m1: 1 machine holds recorded VMs beyond its SKU's capacity: east-m1 (SKU small) holds 10 of its 8 cores (125.0%) at t = 0 s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ingest output lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, db, "ingest", "placelab", vms, "--inventory", fleet, "--dataset", "mine", "--format", "json")
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dataset", "format", "files", "rows_read", "rows_loaded", "rows_rejected", "rejected", "tables", "seconds", "rows_per_sec", "observed_run", "warnings"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("ingest JSON lacks %q", k)
		}
	}
	ws, _ := sum["warnings"].([]any)
	if len(ws) != 4 {
		t.Fatalf("%d warnings in JSON, want 4: %s", len(ws), out)
	}
	first, _ := ws[0].(map[string]any)
	if first["code"] != "vm-fits-no-sku" || first["row"] != 4.0 || first["count"] != 1.0 || first["object"] != "VM huge" {
		t.Errorf("first warning %v", first)
	}
	id := fmt.Sprint(sum["observed_run"])
	out, err := runCheck(t, db, id)
	if err == nil || !strings.Contains(out, "machine east-m1 (id 0, SKU small): cores at 125.0% of capacity, 10 of 8 cores, at t = 0 s; VMs on it then, largest first: web-2, web-1") {
		t.Fatalf("check: %v\n%s", err, out)
	}
	out, _ = runCheck(t, db, id, "--format", "json")
	var rep struct {
		Violations []map[string]any `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Violations) != 1 {
		t.Fatalf("check JSON %v: %s", err, out)
	}
	v := rep.Violations[0]
	for k, want := range map[string]any{"machine_id": 0.0, "problem": "cores", "peak": 1.25, "machine": "east-m1", "sku": "small",
		"capacity": 8.0, "load": 10.0, "unit": "cores", "vm_count": 2.0} {
		if v[k] != want {
			t.Errorf("check JSON %s = %v, want %v", k, v[k], want)
		}
	}
}

// runCheck runs placelab check --run run and returns what it printed
// (check exits 1 on a violation).
func runCheck(t *testing.T, db, id string, args ...string) (string, error) {
	t.Helper()
	return run(t, db, append([]string{"check", "--run", id}, args...)...)
}
