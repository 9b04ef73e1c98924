package analysis_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// layers ranks placelab's packages: a package imports only packages of a
// lower rank (docs/architecture.md draws the same map). The engines and the
// store at the bottom; the simulation; the run pipeline; the studies, each
// in its own package, and those that build on another study's result; the
// harnesses (experiments, bench); the front ends.
var layers = map[string]int{
	"optimizer": 0, "sql": 0, "datasets": 0, "predict": 0, "internal": 0,
	"analysis/replay/outage": 1, "analysis/replay/healable": 1, "analysis/report": 1,
	"analysis/replay":   2,
	"analysis":          3,
	"analysis/snapshot": 4, "analysis/lpinterval": 4, "analysis/lifetime": 4, "analysis/oversub": 4,
	"analysis/characterize": 4, "analysis/overview": 4, "analysis/timing": 4,
	"analysis/capacity": 5, "analysis/cluster": 5, "analysis/internal/testkit": 5,
	"analysis/whatif": 6, "analysis/plan": 6,
	"analysis/experiments": 7,
	"bench":                8,
	"cli":                  9, "notebooks": 9,
}

// rank is the rank of placelab/<p>: its own entry, else its nearest
// parent's (optimizer/drain is optimizer's).
func rank(p string) (int, bool) {
	for q := p; ; {
		if r, ok := layers[q]; ok {
			return r, true
		}
		i := strings.LastIndex(q, "/")
		if i < 0 {
			return 0, false
		}
		q = q[:i]
	}
}

// TestLayers: no package imports one above it or beside it, and every
// package has a place in the map (a new package must say where it sits).
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "placelab/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], "placelab/")
		r, ok := rank(pkg)
		if !ok {
			bad = append(bad, pkg+": not in the layer map")
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "placelab/") {
				continue
			}
			dep := strings.TrimPrefix(imp, "placelab/")
			if d, ok := rank(dep); ok && d >= r && !(d == 0 && r == 0) {
				bad = append(bad, pkg+" imports "+dep)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("layering broken:\n%s", strings.Join(bad, "\n"))
	}
}
