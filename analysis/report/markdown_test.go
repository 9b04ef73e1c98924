package report

import (
	"math"
	"strings"
	"testing"

	store "placelab/sql"
)

// TestMarkdown: a page's sections become headings, notes and tables, a
// missing value reads as Missing (never NULL or NaN), a pipe in a cell is
// escaped, and rows past MaxRows are counted, not shown.
func TestMarkdown(t *testing.T) {
	p := &Page{Title: "T", Sections: []Section{{Title: "S", Note: "n", MaxRows: 2,
		Table: &store.Result{Columns: []string{"a", "b"}, Rows: [][]any{{"x|y", nil}, {1.5, math.NaN()}, {"z", 3.0}}}}}}
	got := p.Markdown()
	want := "# T\n\n## S\n\nn\n\n| a | b |\n| --- | --- |\n| x\\|y | — |\n| 1.5 | — |\n\n1 more rows: the view behind the section holds them.\n\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(got, "NULL") || strings.Contains(got, "NaN") {
		t.Fatal("a missing value printed raw")
	}
}
