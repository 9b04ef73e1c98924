// Package shareddata finds the shared real traces the tests read — the
// directory ../shared/data beside the module root (see
// ../shared/data/README.md) — for every package's tests alike.
package shareddata

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv names the variable that turns absent shared data from a skip
// into a failure: make test sets PLACELAB_REQUIRE_DATA=1, so a real-data
// test cannot pass by not running.
const RequireEnv = "PLACELAB_REQUIRE_DATA"

// Dir returns the shared data directory, ../shared/data from the module
// root (the nearest directory above the working directory holding
// go.mod), whether it exists or not.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "data"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("shareddata: no go.mod above " + wd)
		}
	}
}

// Path returns the path of rel (a file or directory, slash-separated)
// under the shared data directory. When it is absent the test is skipped,
// or fails if PLACELAB_REQUIRE_DATA is set (like PLACELAB_REQUIRE_CHROMIUM).
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("shared data not present: %s (%s is set)", p, RequireEnv)
		} else {
			t.Skipf("shared data not present: %s (set %s=1 to fail instead)", p, RequireEnv)
		}
	}
	return p
}
