package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	store "placelab/sql"
)

var fragmentSeq atomic.Int64

// NotebookAssets is the folder, beside a notebook (or a page exported from
// it), that holds ECharts for the notebook's charts.
const NotebookAssets = "placelab-assets"

// WriteNotebookAssets writes ECharts and its license into
// dir/placelab-assets, unless the same file is there already.
func WriteNotebookAssets(dir string) error {
	ad := filepath.Join(dir, NotebookAssets)
	js := filepath.Join(ad, "echarts.min.js")
	if b, err := os.ReadFile(js); err == nil && bytes.Equal(b, echartsJS) {
		return nil
	}
	if err := os.MkdirAll(ad, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ad, "ECHARTS-LICENSE"), echartsLicense, 0o644); err != nil {
		return err
	}
	tmp := js + ".partial"
	if err := os.WriteFile(tmp, echartsJS, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, js)
}

// chartLoader draws a fragment's chart. ECharts is loaded once per page,
// whichever cell asks first, from placelab-assets/echarts.min.js beside the
// notebook: through the Jupyter server's /files/ route when the page is a
// live notebook, beside the page when it is an exported HTML file. Where
// RequireJS is on the page (the classic Notebook, nbconvert's HTML) it loads
// ECharts as the AMD module it declares itself to be; elsewhere as a plain
// script that sets the global echarts. A chart that cannot be drawn says
// why in its place and on the console.
const chartLoader = `(function (id, option) {
  var w = window, el = document.getElementById(id);
  if (!w.placelabECharts) w.placelabECharts = new Promise(function (ok, fail) {
    if (w.echarts && w.echarts.init) return ok(w.echarts);
    var l = w.location, m = l.pathname.match(/^(.*?)\/(?:notebooks|tree|lab\/tree|lab\/workspaces\/[^\/]+\/tree|doc\/tree)\/((?:[^\/]*\/)*)[^\/]*$/);
    var url = (l.protocol !== 'file:' && m ? m[1] + '/files/' + m[2] : '') + 'placelab-assets/echarts.min.js';
    if (typeof w.define === 'function' && w.define.amd && typeof w.require === 'function') {
      w.require.config({ paths: { 'placelab-echarts': url.replace(/\.js$/, '') } });
      w.require(['placelab-echarts'], ok, function (e) { fail(new Error('RequireJS could not load ' + url + ': ' + e)); });
    } else {
      var s = document.createElement('script');
      s.src = url;
      s.onload = function () { w.echarts ? ok(w.echarts) : fail(new Error(url + ' did not define echarts')); };
      s.onerror = function () { fail(new Error('could not load ' + url)); };
      document.head.appendChild(s);
    }
  });
  w.placelabECharts.then(function (ec) { ec.init(el, null, { renderer: 'canvas' }).setOption(option); }, function (e) {
    el.style.height = 'auto';
    el.textContent = 'Chart not drawn: ' + e.message + ' (placelab-assets/ must sit beside the notebook or the exported page)';
    console.error('placelab: ' + e.message);
  });
})`

// Fragment renders one chart (and optionally a table of at most maxRows
// rows) as an HTML fragment for a notebook cell's output. The chart's
// options are inlined and ECharts is loaded once per page (see
// chartLoader), so a notebook carries a few KB per chart rather than the
// library; call WriteNotebookAssets for the notebook's folder. Trace
// strings are escaped as in pages.
func Fragment(title string, ch Chart, table *store.Result, maxRows int) (string, error) {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "<h4>%s</h4>\n", html.EscapeString(title))
	}
	if ch != nil {
		ch.Validate()
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
				fmt.Fprintf(&b, "<td style=\"border:1px solid #ccc;padding:2px 6px;text-align:right\">%s</td>", html.EscapeString(Cell(x)))
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
