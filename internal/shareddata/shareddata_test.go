package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recorder stands in for a test: it records Fatalf and Skipf instead of
// stopping.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatal(args ...any)              { r.fatal = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skip = fmt.Sprintf(format, a...) }

// TestMissingDataSkipsOrFails: an absent file skips the test, unless
// PLACELAB_REQUIRE_DATA is set, when it fails it.
func TestMissingDataSkipsOrFails(t *testing.T) {
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	Path(r, "no/such/file.csv")
	if r.skip == "" || r.fatal != "" {
		t.Errorf("without %s: skip %q, fatal %q; want a skip", RequireEnv, r.skip, r.fatal)
	}
	t.Setenv(RequireEnv, "1")
	r = &recorder{TB: t}
	Path(r, "no/such/file.csv")
	if r.fatal == "" || r.skip != "" {
		t.Errorf("with %s=1: skip %q, fatal %q; want a failure", RequireEnv, r.skip, r.fatal)
	}
}

// TestDir: the shared data sit beside the module root, and a file there
// is found under the name the tests use.
func TestDir(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	root := filepath.Dir(filepath.Dir(wd)) // internal/shareddata → module root
	if want := filepath.Join(filepath.Dir(root), "shared", "data"); dir != want {
		t.Errorf("Dir() = %s, want %s", dir, want)
	}
	if p := Path(t, "README.md"); filepath.Dir(p) != dir {
		t.Errorf("Path = %s, not in %s", p, dir)
	}
}
