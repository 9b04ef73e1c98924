package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	store "placelab/sql"
)

// EChartsVersion is the version of the embedded assets/echarts.min.js (npm
// package echarts, dist/echarts.min.js, Apache-2.0).
const EChartsVersion = "5.6.0"

//go:embed assets/echarts.min.js
var echartsJS []byte

//go:embed assets/ECHARTS-LICENSE
var echartsLicense []byte

// Chart is what go-echarts chart types provide.
type Chart interface {
	Validate()
	JSON() map[string]any
}

// Section is one block of a page.
type Section struct {
	ID    string // anchor; derived from Title when empty
	Title string
	Note  string // one paragraph under the title
	Chart Chart  // optional
	Table *store.Result
	// MaxRows caps the rows shown (0: 50); the rest are counted, with
	// Rest saying where to find them (default: query the view).
	MaxRows int
	Rest    string
	SQL     string // the query or view behind the section, shown folded
}

// Page is one HTML file.
type Page struct {
	Title    string
	Subtitle string
	Sections []Section
	Footer   string
	// Links are other pages of the same report (relative paths).
	Links []Link
}

// Link is a link to another page of the report.
type Link struct{ Text, Href string }

// WriteAssets writes the shared script beside pages in dir.
func WriteAssets(dir string) error {
	ad := filepath.Join(dir, "assets")
	if err := os.MkdirAll(ad, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ad, "echarts.min.js"), echartsJS, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(ad, "ECHARTS-LICENSE"), echartsLicense, 0o644)
}

// Write renders the page to dir/name and writes the assets beside it.
func (p *Page) Write(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := WriteAssets(dir); err != nil {
		return "", err
	}
	html, err := p.Render()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, html, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

type sectionView struct {
	ID, Title, Note, SQL string
	ChartID              string
	Options              template.JS
	Columns              []colView
	Rows                 [][]cellView
	Shown, More          int
	Rest                 string
}

// colView is a table's column header, aligned as its first value.
type colView struct {
	Name string
	Str  bool
}

// cellView is one table cell on a page: its text and, for a missing value,
// the tooltip that says so. A cell of more than longCell characters wraps;
// the others stay on one line. Text (a string value) is aligned left,
// numbers right.
type cellView struct {
	Text, Title string
	Long, Str   bool
}

// longCell is the length beyond which a cell's text wraps (a parameter
// list, a message) rather than widening its column.
const longCell = 40

// Render returns the page's HTML.
func (p *Page) Render() ([]byte, error) {
	var views []sectionView
	used := map[string]int{}
	for i, s := range p.Sections {
		v := sectionView{Title: s.Title, Note: s.Note, SQL: strings.TrimSpace(s.SQL)}
		v.ID = s.ID
		if v.ID == "" {
			v.ID = slug(s.Title)
		}
		if n := used[v.ID]; n > 0 {
			v.ID = fmt.Sprintf("%s-%d", v.ID, n)
		}
		used[v.ID]++
		if s.Chart != nil {
			s.Chart.Validate()
			if err := CheckUnits(s.Chart); err != nil {
				return nil, fmt.Errorf("report: section %q: %w", s.Title, err)
			}
			opts := s.Chart.JSON()
			b, err := json.Marshal(opts) // escapes <, >, & for safe inlining
			if err != nil {
				return nil, fmt.Errorf("report: section %q: %w", s.Title, err)
			}
			v.ChartID = fmt.Sprintf("chart-%d", i)
			v.Options = template.JS(missingLabels(b))
		}
		if s.Table != nil {
			max := s.MaxRows
			if max == 0 {
				max = 50
			}
			for c, name := range s.Table.Columns {
				cv := colView{Name: name}
				for _, row := range s.Table.Rows {
					if c < len(row) && row[c] != nil {
						_, cv.Str = row[c].(string)
						break
					}
				}
				v.Columns = append(v.Columns, cv)
			}
			for r, row := range s.Table.Rows {
				if r == max {
					v.More = len(s.Table.Rows) - max
					break
				}
				cells := make([]cellView, len(row))
				for c, x := range row {
					cells[c].Text, cells[c].Title = PageCell(x)
					cells[c].Long = utf8.RuneCountInString(cells[c].Text) > longCell
					_, cells[c].Str = x.(string)
				}
				v.Rows = append(v.Rows, cells)
			}
			v.Shown = len(v.Rows)
			v.Rest = s.Rest
			if v.Rest == "" {
				v.Rest = "query the view for all"
			}
		}
		views = append(views, v)
	}
	var b strings.Builder
	err := pageTpl.Execute(&b, map[string]any{
		"Title": p.Title, "Subtitle": p.Subtitle, "Footer": p.Footer,
		"Sections": views, "EChartsVersion": EChartsVersion, "Links": p.Links, "ErrorCapture": template.HTML(errorCapture),
		"ChartFit": template.JS(chartFit),
	})
	return []byte(b.String()), err
}

// Missing is what a page shows for a missing value (SQL NULL, NaN): an em
// dash, with MissingTitle as its tooltip.
const (
	Missing      = "—"
	MissingTitle = "no value"
)

// PageCell formats a value for a page's table cell: as Cell, except that a
// missing value (nil, NaN) is Missing with a title saying why, and an
// infinity is ∞ or −∞, so that no page prints NULL, <nil> or NaN.
func PageCell(x any) (text, title string) {
	switch v := x.(type) {
	case nil:
		return Missing, MissingTitle
	case float64:
		switch {
		case math.IsNaN(v):
			return Missing, "not a number"
		case math.IsInf(v, 1):
			return "∞", ""
		case math.IsInf(v, -1):
			return "−∞", ""
		}
	case float32:
		return PageCell(float64(v))
	}
	return Cell(x), ""
}

// missingLabels replaces, in a chart's marshalled options, every string
// that is exactly fmt's "<nil>" (a label built with fmt.Sprint from a NULL
// column) by Missing, so that a chart never labels a category "<nil>".
// encoding/json writes < and > as \u003c and \u003e.
func missingLabels(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(`"\u003cnil\u003e"`), []byte(`"`+Missing+`"`))
}

// Cell formats a value for a text table cell (placelab sql): NULL for a
// missing value, as SQL consoles print it. Pages use PageCell.
func Cell(x any) string {
	switch v := x.(type) {
	case nil:
		return "NULL"
	case float64:
		if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
			return fmt.Sprintf("%d", int64(v))
		}
		return fmt.Sprintf("%.4g", v)
	case float32:
		return Cell(float64(v))
	case string:
		return v
	}
	return fmt.Sprint(x)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		out = "section"
	}
	return out
}

var pageTpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222; background: #fafafa; }
header { background: #1f3a5f; color: #fff; padding: 18px 32px; }
header h1 { margin: 0; font-size: 22px; } header p { margin: 4px 0 0; opacity: .85; }
nav { padding: 8px 32px; background: #e8eef5; font-size: 14px; }
nav a { margin-right: 14px; color: #1f3a5f; }
main { padding: 8px 32px 32px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; margin: 18px 0; padding: 12px 20px; }
h2 { font-size: 18px; margin: 6px 0; }
.note { color: #555; font-size: 14px; max-width: 1100px; }
.chart { width: 100%; height: 380px; }
table { border-collapse: separate; border-spacing: 0; font-size: 13px; margin: 8px 0; }
.scroll { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ddd; border-width: 0 1px 1px 0; padding: 3px 8px; text-align: right; background: #fff; }
tr > :first-child { border-left-width: 1px; } thead th { border-top-width: 1px; }
th { background: #f0f3f7; } td:first-child, th:first-child { text-align: left; }
/* The first column (the row's key) stays in view while a wide table scrolls. */
td:first-child, th:first-child { position: sticky; left: 0; z-index: 1; box-shadow: 2px 0 2px -1px rgba(0,0,0,.15); }
td.missing { color: #999; text-align: center; }
td { white-space: nowrap; } td.long { white-space: normal; min-width: 24em; } td.text, th.text { text-align: left; }
details { font-size: 13px; } pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
footer { color: #777; font-size: 12px; padding: 0 32px 24px; }
</style>
{{.ErrorCapture}}<script src="assets/echarts.min.js"></script>
</head>
<body>
<header><h1>{{.Title}}</h1>{{if .Subtitle}}<p>{{.Subtitle}}</p>{{end}}{{if .Links}}<p>{{range .Links}}<a style="color:#fff;margin-right:14px" href="{{.Href}}">{{.Text}}</a>{{end}}</p>{{end}}</header>
<nav>{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}</nav>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{if .ChartID}}<div class="chart" id="{{.ChartID}}"></div>{{end}}
{{if .Columns}}<div class="scroll"><table><thead><tr>{{range .Columns}}<th{{if .Str}} class="text"{{end}}>{{.Name}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}{{if .Title}}<td class="missing" title="{{.Title}}">{{.Text}}</td>{{else}}<td{{if or .Long .Str}} class="{{if .Long}}long{{end}}{{if and .Long .Str}} {{end}}{{if .Str}}text{{end}}"{{end}}>{{.Text}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table></div>{{if .More}}<p class="note">The first {{.Shown}} rows; {{.More}} more ({{.Rest}}).</p>{{end}}{{end}}
{{if .SQL}}<details><summary>SQL</summary><pre>{{.SQL}}</pre></details>{{end}}
</section>
{{end}}</main>
<footer>{{.Footer}} Charts drawn offline with ECharts {{.EChartsVersion}}.</footer>
<script>
(function () {
  var check = { charts: 0, rendered: 0, errors: window.placelabErrors };
  var charts = [
{{range .Sections}}{{if .ChartID}}    [{{.ChartID}}, {{.Options}}],
{{end}}{{end}}  ];
  var fit = {{.ChartFit}};
  if (typeof echarts === 'undefined') { check.errors.push('echarts script did not load'); }
  else charts.forEach(function (c) {
    check.charts++;
    try {
      var el = document.getElementById(c[0]);
      fit(el, c[1]);
      var chart = echarts.init(el, null, { renderer: 'canvas' });
      chart.setOption(c[1]);
      window.addEventListener('resize', function () { chart.resize(); });
      check.rendered++;
    } catch (e) { check.errors.push(c[0] + ': ' + e); }
  });
  window.placelabCheck = check;
  // Self-check for tests: with #selfcheck in the URL, count non-blank canvas
  // pixels per chart and publish the result in the DOM.
  if (location.hash === '#selfcheck') setTimeout(function () {
    check.canvases = [];
    document.querySelectorAll('.chart canvas').forEach(function (cv) {
      var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data, n = 0;
      for (var i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
      check.canvases.push(n);
    });
    // Tables: the width each may use and the width it takes, and whether
    // its first column is sticky.
    check.window = window.innerWidth;
    check.tables = [];
    document.querySelectorAll('.scroll').forEach(function (sc) {
      var t = sc.querySelector('table'), first = t.querySelector('tbody td, thead th');
      check.tables.push({ container: sc.clientWidth, section: sc.parentNode.clientWidth, width: t.scrollWidth,
        sticky: !!first && getComputedStyle(first).position === 'sticky' });
    });
    var pre = document.createElement('pre'); pre.id = 'selfcheck';
    pre.textContent = JSON.stringify(check); document.body.appendChild(pre);
  }, 1500);
})();
</script>
</body>
</html>
`))

// SiteLinks join the report's pages (placelab report writes them all
// into one directory; placelab characterize writes its page there too).
var SiteLinks = []Link{{Text: "Overview", Href: "index.html"}, {Text: "Workload characterization", Href: "characterize.html"},
	{Text: "Experiments", Href: "experiments.html"}}
