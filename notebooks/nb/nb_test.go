package nb

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placelab/analysis/report"
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

// TestExportedNotebooks checks the executed notebooks and their HTML
// exports in $PLACELAB_NB_HTML (make notebooks-test writes them): each
// executed notebook under maxNotebookBytes, and in headless Chromium every
// chart of every page draws a canvas with non-blank pixels, the console
// clean.
func TestExportedNotebooks(t *testing.T) {
	dir := os.Getenv("PLACELAB_NB_HTML")
	if dir == "" {
		t.Skip("PLACELAB_NB_HTML names the folder of executed notebooks and their HTML (make notebooks-test)")
	}
	committed, _ := filepath.Glob("../*.ipynb")
	if len(committed) == 0 {
		t.Fatal("no notebooks")
	}
	for _, f := range committed {
		p := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".ipynb")+".html")
		nbFile := strings.TrimSuffix(p, ".html") + ".ipynb"
		st, err := os.Stat(nbFile)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > maxNotebookBytes {
			t.Errorf("%s: %d bytes executed, want under %d", filepath.Base(nbFile), st.Size(), maxNotebookBytes)
		}
		res, err := report.CheckNotebookPage(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if res.Charts == 0 {
			t.Errorf("%s: no chart", filepath.Base(p))
		}
		for i, n := range res.Canvases {
			if n == 0 {
				t.Errorf("%s: chart %d of %d drew nothing", filepath.Base(p), i+1, res.Charts)
			}
		}
		if len(res.Errors) > 0 {
			t.Errorf("%s: console errors %q", filepath.Base(p), res.Errors)
		}
		t.Logf("%s: %d charts drawn, %d bytes executed", filepath.Base(p), res.Charts, st.Size())
	}
}

// maxNotebookBytes bounds an executed notebook (charts are options, the
// library loads once from placelab-assets/; tables show at most MaxRows).
const maxNotebookBytes = 300 << 10
