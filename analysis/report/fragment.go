package report

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"strings"
	"sync/atomic"

	store "placelab/sql"
)

var fragmentSeq atomic.Int64

// Fragment renders one chart (and optionally a table of at most maxRows
// rows) as a self-contained HTML fragment for a notebook cell's output: the
// embedded ECharts script is inlined, so the fragment needs no network and
// no assets directory. Trace strings are escaped as in pages.
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
		fmt.Fprintf(&b, "<div id=%q style=\"width:100%%;max-width:900px;height:380px\"></div>\n", id)
		b.WriteString("<script>\n")
		b.WriteString("if (typeof echarts === 'undefined') {\n")
		b.Write(echartsJS)
		b.WriteString("\n}\n")
		fmt.Fprintf(&b, "echarts.init(document.getElementById(%q)).setOption(%s);\n</script>\n", id, opts)
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
