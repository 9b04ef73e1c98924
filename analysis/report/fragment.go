package report

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"strings"
	"sync"
	"sync/atomic"

	store "placelab/sql"
)

var fragmentSeq atomic.Int64

// libraryClass marks the script that carries ECharts on a page of
// fragments, so a test can count the copies (one per notebook).
const libraryClass = "placelab-echarts"

var library struct {
	once sync.Once
	html string
}

// LibraryFragment is ECharts for a page of notebook fragments, to show
// once before its first chart: the library gzipped and base64-encoded
// (about 450 KB rather than 1 MB), unpacked in the browser
// (DecompressionStream) and run with RequireJS's define hidden, so that it
// sets window.echarts whether the page has RequireJS (the classic
// Notebook, nbconvert's HTML) or not (JupyterLab). The page needs nothing
// beside it: an exported notebook draws wherever it is copied.
func LibraryFragment() string {
	library.once.Do(func() {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression) // the level is valid: no error
		w.Write(echartsJS)
		w.Close()
		library.html = fmt.Sprintf("<script class=%q data-version=%q>\n/* ECharts %s, Apache-2.0 (https://echarts.apache.org), gzipped and base64-encoded by placelab */\n%s(%q);\n</script>\n",
			libraryClass, EChartsVersion, EChartsVersion, libraryLoader, base64.StdEncoding.EncodeToString(z.Bytes()))
	})
	return library.html
}

// libraryLoader unpacks the library once per page into the promise
// window.placelabECharts that every chart waits on.
const libraryLoader = `(function (b64) {
  var w = window;
  if (w.placelabECharts) return;
  w.placelabECharts = (function () {
    if (w.echarts && w.echarts.init) return Promise.resolve(w.echarts);
    if (typeof DecompressionStream !== 'function') return Promise.reject(new Error('this browser cannot unpack the chart library (no DecompressionStream)'));
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (src) {
      new Function('define', 'module', 'exports', src).call(w, undefined, undefined, undefined);
      if (!w.echarts || !w.echarts.init) throw new Error('the chart library did not define echarts');
      return w.echarts;
    });
  })();
})`

// chartLoader draws a fragment's chart with the ECharts that
// LibraryFragment put on the page (or a global echarts the page has). A
// chart that cannot be drawn says why in its place and on the console.
const chartLoader = `(function (id, option) {
  var w = window, el = document.getElementById(id);
  var lib = w.placelabECharts || (w.echarts && w.echarts.init ? Promise.resolve(w.echarts) :
    Promise.reject(new Error('ECharts is not on this page (a notebook shows it with its first chart: run the notebook from the top)')));
  lib.then(function (ec) { ec.init(el, null, { renderer: 'canvas' }).setOption(option); }, function (e) {
    el.style.height = 'auto';
    el.textContent = 'Chart not drawn: ' + e.message;
    console.error('placelab: ' + e.message);
  });
})`

// Fragment renders one chart (and optionally a table of at most maxRows
// rows) as an HTML fragment for a notebook cell's output. The chart's
// options are inlined and drawn with the ECharts that LibraryFragment put
// on the page once, so a chart costs a notebook a few KB. Trace strings are
// escaped as in pages. A chart that mixes units on an axis is an error
// (CheckUnits).
func Fragment(title string, ch Chart, table *store.Result, maxRows int) (string, error) {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "<h4>%s</h4>\n", html.EscapeString(title))
	}
	if ch != nil {
		ch.Validate()
		if err := CheckUnits(ch); err != nil {
			return "", fmt.Errorf("report: fragment %q: %w", title, err)
		}
		opts, err := json.Marshal(ch.JSON()) // escapes <, >, & for safe inlining
		if err != nil {
			return "", fmt.Errorf("report: fragment %q: %w", title, err)
		}
		// Cells of a notebook run as separate processes: the id comes from
		// the content (and a per-process sequence), so two different charts
		// on one page never share a div.
		h := fnv.New64a()
		h.Write(opts)
		h.Write([]byte(title))
		id := fmt.Sprintf("placelab-%x-%d", h.Sum64(), fragmentSeq.Add(1))
		fmt.Fprintf(&b, "<div class=\"placelab-chart\" id=%q style=\"width:100%%;max-width:900px;height:380px\"></div>\n", id)
		fmt.Fprintf(&b, "<script>\n%s(%q, %s);\n</script>\n", chartLoader, id, opts)
	}
	if table != nil {
		if maxRows <= 0 {
			maxRows = 20
		}
		b.WriteString("<table style=\"font-size:12px;border-collapse:collapse\"><tr>")
		for _, c := range table.Columns {
			fmt.Fprintf(&b, "<th style=\"border:1px solid #ccc;padding:2px 6px\">%s</th>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
		for i, row := range table.Rows {
			if i == maxRows {
				fmt.Fprintf(&b, "<tr><td colspan=%d>… %d more rows</td></tr>\n", len(table.Columns), len(table.Rows)-maxRows)
				break
			}
			b.WriteString("<tr>")
			for _, x := range row {
				text, title := PageCell(x)
				if title != "" {
					fmt.Fprintf(&b, "<td style=\"border:1px solid #ccc;padding:2px 6px;text-align:center;color:#999\" title=%q>%s</td>", title, html.EscapeString(text))
					continue
				}
				fmt.Fprintf(&b, "<td style=\"border:1px solid #ccc;padding:2px 6px;text-align:right\">%s</td>", html.EscapeString(text))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	return b.String(), nil
}

// SectionFragment renders a page's section (its note, chart and table) as
// a notebook fragment, so a notebook shows what the report shows, the
// papers' numbers included.
func SectionFragment(s Section) (string, error) {
	h, err := Fragment(s.Title, s.Chart, s.Table, s.MaxRows)
	if err != nil || s.Note == "" {
		return h, err
	}
	note := fmt.Sprintf("<p style=\"font-size:12px;color:#555;max-width:900px\">%s</p>\n", html.EscapeString(s.Note))
	if i := strings.Index(h, "</h4>\n"); i >= 0 {
		return h[:i+6] + note + h[i+6:], nil
	}
	return note + h, nil
}
