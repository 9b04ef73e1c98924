package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	store "placelab/sql"
)

// TestPageCell: a missing value is an em dash with a title, never NULL,
// <nil> or NaN (issue 52 item 10: the report printed NULL); other values
// are formatted as Cell formats them.
func TestPageCell(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          any
		text, title string
	}{
		{"NULL", nil, Missing, MissingTitle},
		{"NaN", math.NaN(), Missing, "not a number"},
		{"NaN float32", float32(math.NaN()), Missing, "not a number"},
		{"+Inf", math.Inf(1), "∞", ""},
		{"-Inf", math.Inf(-1), "−∞", ""},
		{"integer float", 3.0, "3", ""},
		{"float", 0.123456, "0.1235", ""},
		{"string", "vm-1", "vm-1", ""},
		{"bool", false, "false", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, title := PageCell(tc.in)
			if text != tc.text || title != tc.title {
				t.Errorf("PageCell(%v) = %q, %q; want %q, %q", tc.in, text, title, tc.text, tc.title)
			}
		})
	}
	if Cell(nil) != "NULL" {
		t.Errorf("Cell(nil) = %q: the text tables of placelab sql print NULL", Cell(nil))
	}
}

// rawMissing matches a table cell or chart label that prints a missing
// value raw.
var rawMissing = regexp.MustCompile(`<t[dh][^>]*>\s*(NULL|&lt;nil&gt;|<nil>|NaN|null)\s*</t[dh]>|\\u003cnil\\u003e|"NaN"`)

// widePage is a page of one table wider than any window (40 columns, NULLs
// and NaNs among its values) and one chart whose x axis has a long name,
// whose category is NULL (fmt's "<nil>") and whose second series has one
// point — the three faults of issue 52 item 10 in one page.
func widePage() *Page {
	tbl := &store.Result{}
	for c := 0; c < 40; c++ {
		tbl.Columns = append(tbl.Columns, "a_rather_long_column_"+string(rune('a'+c%26)))
	}
	for r := 0; r < 5; r++ {
		row := []any{"key-" + string(rune('a'+r))}
		for c := 1; c < 40; c++ {
			switch c % 3 {
			case 0:
				row = append(row, nil)
			case 1:
				row = append(row, math.NaN())
			default:
				row = append(row, float64(c*r))
			}
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "a long name of the x axis that ECharts would put past the end (h)"}),
		charts.WithYAxisOpts(opts.YAxis{Name: "a long name of the y axis, centred on it by default (VMs)"}))
	line.SetXAxis([]string{"<nil>", "b", "c"})
	line.AddSeries("three points", []opts.LineData{{Value: 1}, {Value: 2}, {Value: 3}}, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	line.AddSeries("one point", []opts.LineData{{Value: "-"}, {Value: 2}, {Value: "-"}}, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	return &Page{Title: "wide", Sections: []Section{
		{Title: "Wide table", Table: tbl, SQL: "SELECT NULL AS a -- SQL text may say NULL"},
		{Title: "Chart", Chart: line},
	}}
}

// TestRenderPrintsNoRawMissing: no table cell or chart label of a rendered
// page prints NULL, <nil> or NaN (the SQL shown folded under a section is
// the query's text and may); missing cells carry their title.
func TestRenderPrintsNoRawMissing(t *testing.T) {
	b, err := widePage().Render()
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	if i := strings.Index(body, "<details>"); i >= 0 {
		body = body[:i] + body[strings.Index(body, "</details>"):]
	}
	if m := rawMissing.FindString(body); m != "" {
		t.Errorf("page prints a missing value raw: %s", m)
	}
	if n := strings.Count(body, `<td class="missing" title="no value">—</td>`); n != 5*13 {
		t.Errorf("%d cells show a missing value with its title, want %d", n, 5*13)
	}
	if !strings.Contains(body, `"—"`) {
		t.Error("the NULL category is not labelled —")
	}
}

// TestPageLayoutInChromium opens a page with a table wider than the window
// and a chart in headless Chromium at CheckWidth: the table's box takes
// the section's width (no fixed cap: issue 52 item 10, 1,140 px in a
// 1,400 px window), scrolls, and keeps its first column in view; no cell
// prints a missing value raw; the chart draws.
func TestPageLayoutInChromium(t *testing.T) {
	if _, err := Browser(); err != nil {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	path, err := widePage().Write(t.TempDir(), "wide.html")
	if err != nil {
		t.Fatal(err)
	}
	chk, err := Check(context.Background(), filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	if chk.Window != CheckWidth || len(chk.Tables) != 1 {
		t.Fatalf("window %d, %d tables; want %d, 1", chk.Window, len(chk.Tables), CheckWidth)
	}
	tb := chk.Tables[0]
	// The page's margins: main's 32 px each side, the section's border and
	// 20 px padding (inside Section, its client width), and the window's
	// scroll bar.
	if tb.Container < CheckWidth-150 || tb.Container != tb.Section-40 {
		t.Errorf("table box %d px in a section of %d px (20 px padding), window %d: want the section's width, at least %d", tb.Container, tb.Section, CheckWidth, CheckWidth-150)
	}
	if tb.Width <= tb.Container || !tb.Sticky {
		t.Errorf("table %d px in a box of %d (it should scroll), first column sticky %v", tb.Width, tb.Container, tb.Sticky)
	}
	if len(chk.Raw) != 0 {
		t.Errorf("cells print missing values raw: %q", chk.Raw)
	}
	if chk.Charts != 1 || chk.Rendered != 1 || len(chk.Errors) != 0 {
		t.Errorf("charts %d, rendered %d, errors %q", chk.Charts, chk.Rendered, chk.Errors)
	}
}
