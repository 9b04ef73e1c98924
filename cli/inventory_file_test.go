package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestIngestInventoryFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.duckdb")
	help := mustRun(t, db, "ingest", "help-format", "inventory")
	for _, want := range []string{"name,cluster,rack,sku,cores,memory_gb", "update_domain", "health", "file:PATH"} {
		if !strings.Contains(help, want) {
			t.Errorf("help-format inventory lacks %q:\n%s", want, help)
		}
	}
	trace := write(t, dir, "hw.csv", "vmid,cpu,mem,at,lt\n0,4,16,0,100\n1,8,32,5,50\n")
	fleet := write(t, dir, "fleet.csv", "name,cluster,rack,sku,cores,memory_gb\n"+
		"m1,c1,r1,gen5,48,384\nm2,c1,r2,gen5,48,384\nm3,c2,r1,big,96,768\n")
	out := mustRun(t, db, "ingest", "huawei", trace, "--dataset", "hw", "--inventory", fleet)
	if !strings.Contains(out, "machine          3 rows") || !strings.Contains(out, "sku              2 rows") {
		t.Fatalf("ingest with --inventory %s:\n%s", fleet, out)
	}
	bad := write(t, dir, "bad.csv", "name,cluster,rack,sku,cores,memory_gb\nm1,c1,r1,gen5,48,384\nm1,c1,r2,gen5,48,384\n")
	_, err := run(t, db, "ingest", "huawei", trace, "--dataset", "hw", "--inventory", "file:"+bad)
	// an inventory file's rows are never skipped: no --max-rejects hint
	if err == nil || !strings.Contains(err.Error(), bad+": row 3 (its line in the file; the header is line 1): field name") || !strings.Contains(err.Error(), "nothing was changed)") {
		t.Fatalf("bad inventory: %v", err)
	}
}
