package nb

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"placelab/analysis/cluster"
	"placelab/analysis/lifetime"
	"placelab/analysis/replay"
	"placelab/analysis/report"
	store "placelab/sql"
)

// maxCellLines is the longest code cell a notebook may have: a notebook
// cell says one idea in a few lines over this package.
const maxCellLines = 15

type notebook struct {
	Cells []struct {
		Type    string            `json:"cell_type"`
		Source  []string          `json:"source"`
		Outputs []json.RawMessage `json:"outputs"`
	} `json:"cells"`
}

func readNotebook(t *testing.T, path string) notebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

// TestNotebooksAreShort: every committed notebook's code cells are at most
// maxCellLines lines, carry no outputs, and never panic (an error is
// nb.Check's one line).
func TestNotebooksAreShort(t *testing.T) {
	files, _ := filepath.Glob("../*.ipynb")
	if len(files) < 5 {
		t.Fatalf("notebooks: %v, want one per capability (5)", files)
	}
	for _, f := range files {
		for i, c := range readNotebook(t, f).Cells {
			if c.Type != "code" {
				continue
			}
			src := strings.Join(c.Source, "")
			if n := len(strings.Split(strings.TrimSpace(src), "\n")); n > maxCellLines {
				t.Errorf("%s cell %d: %d lines, want at most %d", filepath.Base(f), i, n, maxCellLines)
			}
			if len(c.Outputs) > 0 {
				t.Errorf("%s cell %d: outputs committed", filepath.Base(f), i)
			}
			if strings.Contains(src, "panic(") {
				t.Errorf("%s cell %d: panics (use nb.Check)", filepath.Base(f), i)
			}
		}
	}
}

// TestExportedNotebooks checks the executed notebooks in
// $PLACELAB_NB_EXECUTED (make notebooks-test writes them). Each is exported
// with jupyter nbconvert --to html into a fresh folder, with nothing
// beside it (issue 32: an exported page that loaded ECharts from a folder
// beside it drew nothing once moved), and opened in headless Chromium:
// every chart draws a canvas with non-blank pixels and the console stays
// clean. The library is on the page exactly once and in the notebook at
// most once; beside it the notebook stays under maxNotebookBytes.
func TestExportedNotebooks(t *testing.T) {
	dir := os.Getenv("PLACELAB_NB_EXECUTED")
	if dir == "" {
		t.Skip("PLACELAB_NB_EXECUTED names the folder of executed notebooks (make notebooks-test)")
	}
	jupyter := "/usr/bin/jupyter" // Debian's, with nbconvert (TOOLCHAIN.md)
	if _, err := os.Stat(jupyter); err != nil {
		t.Fatalf("%s: %v (make deps-notebooks)", jupyter, err)
	}
	committed, _ := filepath.Glob("../*.ipynb")
	if len(committed) == 0 {
		t.Fatal("no notebooks")
	}
	lib := len(report.LibraryFragment())
	for _, f := range committed {
		name := strings.TrimSuffix(filepath.Base(f), ".ipynb")
		t.Run(name, func(t *testing.T) {
			executed := filepath.Join(dir, name+".ipynb")
			b, err := os.ReadFile(executed)
			if err != nil {
				t.Fatal(err)
			}
			copies := strings.Count(string(b), libraryInJSON)
			if copies > 1 {
				t.Errorf("%s holds the chart library %d times, want at most once", filepath.Base(executed), copies)
			}
			if rest := len(b) - copies*lib; rest > maxNotebookBytes {
				t.Errorf("%s: %d bytes executed (%d beside the library), want under %d beside it", filepath.Base(executed), len(b), rest, maxNotebookBytes)
			}
			fresh := t.TempDir()
			out, err := exec.Command(jupyter, "nbconvert", "--to", "html",
				"--HTMLExporter.require_js_url=file:///usr/share/javascript/requirejs/require.min.js",
				"--output-dir", fresh, executed).CombinedOutput()
			if err != nil {
				t.Fatalf("nbconvert: %v: %s", err, out)
			}
			page := filepath.Join(fresh, name+".html")
			if beside, _ := os.ReadDir(fresh); len(beside) != 1 {
				t.Fatalf("the export wrote %d files, want the page alone", len(beside))
			}
			h, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			res, err := report.CheckNotebookPage(context.Background(), page)
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			if res.Charts == 0 {
				t.Errorf("%s: no chart", filepath.Base(page))
			}
			if n := strings.Count(string(h), libraryOnPage); res.Charts > 0 && n != 1 {
				t.Errorf("%s: the chart library %d times on the page, want once", filepath.Base(page), n)
			}
			for i, n := range res.Canvases {
				if n == 0 {
					t.Errorf("%s: chart %d of %d drew nothing", filepath.Base(page), i+1, res.Charts)
				}
			}
			if len(res.Errors) > 0 {
				t.Errorf("%s: console errors %q", filepath.Base(page), res.Errors)
			}
			t.Logf("%s: %d of %d charts drawn alone in a fresh folder; %d bytes executed (library %d time(s)), %d bytes exported",
				name, drawn(res.Canvases), res.Charts, len(b), copies, len(h))
		})
	}
}

func drawn(canvases []int) int {
	n := 0
	for _, c := range canvases {
		if c > 0 {
			n++
		}
	}
	return n
}

// The class of the script that carries the chart library
// (report.LibraryFragment), as an exported page and as a notebook's JSON
// spell it: its count is the number of copies.
const (
	libraryOnPage = `class="placelab-echarts"`
	libraryInJSON = `class=\"placelab-echarts\"`
)

// maxNotebookBytes bounds an executed notebook beside its one copy of the
// chart library (charts are options; tables show at most MaxRows).
const maxNotebookBytes = 300 << 10

// TestLibraryOncePerSession: the first chart a kernel session shows
// carries the library, later charts and tables do not; a new session
// ($GONB_TMP_DIR is new when the kernel restarts) shows it again.
func TestLibraryOncePerSession(t *testing.T) {
	var shown []string
	defer func(d func(string)) { Display = d }(Display)
	Display = func(h string) { shown = append(shown, h) }
	chart := func() report.Chart {
		b := charts.NewBar()
		b.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "rejected (VMs)"}))
		return b.SetXAxis([]string{"a"}).AddSeries("rejected", []opts.BarData{{Value: 1}})
	}
	lib := report.LibraryFragment()
	for session := 0; session < 2; session++ {
		t.Setenv("GONB_TMP_DIR", t.TempDir())
		shown = nil
		Table("before any chart", &store.Result{Columns: []string{"n"}, Rows: [][]any{{1}}})
		Chart("first", chart())
		Chart("second", chart())
		want := []bool{false, true, false}
		for i, h := range shown {
			if strings.Contains(h, lib) != want[i] {
				t.Errorf("session %d, output %d: carries the library %v, want %v", session, i, !want[i], want[i])
			}
		}
		if len(shown) != len(want) {
			t.Errorf("session %d: %d outputs, want %d", session, len(shown), len(want))
		}
	}
}

// TestChartsOneUnitPerAxis: the charts this package draws pass
// report.CheckUnits. Issue 32: notebook 02's "Packing density and
// rejections per setting" drew packing density (%) and rejected VMs on one
// unnamed axis.
func TestChartsOneUnitPerAxis(t *testing.T) {
	runs := []replay.Summary{{PackingDensityMean: 0.81, Rejected: 12}, {PackingDensityMean: 0.78, Rejected: 40}}
	if err := report.CheckUnits(compareChart([]string{"protean", "bestfit"}, runs)); err != nil {
		t.Errorf("Compare: %v", err)
	}
	var shown []string
	defer func(d func(string)) { Display = d }(Display)
	Display = func(h string) { shown = append(shown, h) }
	ClusterCompare(&cluster.CompareReport{Rows: []cluster.ClusterCompareRow{{Policy: "protean", Run: 1, NodesInUse: 9, LBNodes: 7, UBNodes: 8}}})
	LifetimeShares(&lifetime.Comparison{Dataset: "s", Arms: []lifetime.ArmSummary{{Arm: "off"}}})
	if len(shown) != 2 {
		t.Errorf("%d charts shown, want 2 (a chart that mixes units stops the cell)", len(shown))
	}
}
