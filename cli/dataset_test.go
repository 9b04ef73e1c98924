package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetDefault: replay and capacity without --dataset run on the only
// dataset with machines, whatever its name; with none, or with several,
// they say so in one line naming them.
func TestDatasetDefault(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	for _, cmd := range [][]string{{"replay"}, {"capacity"}} {
		_, err := run(t, db, cmd...)
		if err == nil || !strings.Contains(err.Error(), "no dataset with machines is loaded") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s on an empty database: %v", cmd[0], err)
		}
	}
	mustRun(t, db, "generate", "--dataset", "mine", "--machines", "40", "--vms", "300", "--days", "1", "--series", "0")
	out := mustRun(t, db, "replay", "--no-explain")
	if !strings.Contains(out, `on "mine"`) {
		t.Errorf("replay without --dataset did not run on the only dataset:\n%s", out)
	}
	mustRun(t, db, "generate", "--dataset", "other", "--machines", "40", "--vms", "300", "--days", "1", "--series", "0")
	for _, cmd := range [][]string{{"replay"}, {"capacity"}, {"lifetime", "--arms", "off"}} {
		_, err := run(t, db, cmd...)
		if err == nil || !strings.Contains(err.Error(), "2 datasets with machines are loaded (mine, other): name one") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s with two datasets: %v", cmd[0], err)
		}
	}
	out = mustRun(t, db, "replay", "--dataset", "other", "--no-explain")
	if !strings.Contains(out, `on "other"`) {
		t.Errorf("replay --dataset other:\n%s", out)
	}
}
