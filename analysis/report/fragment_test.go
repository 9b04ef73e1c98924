package report

import (
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	store "placelab/sql"
)

func TestFragment(t *testing.T) {
	bar := charts.NewBar()
	bar.SetXAxis([]string{"<script>alert(1)</script>"})
	bar.AddSeries("s", []opts.BarData{{Value: 1}})
	tbl := &store.Result{Columns: []string{"vm_type", "n"}, Rows: [][]any{{"<b>x</b>", int64(3)}, {"y", int64(2)}}}
	h, err := Fragment("types <&>", bar, tbl, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h4>types &lt;&amp;&gt;</h4>", "&lt;b&gt;x&lt;/b&gt;", "… 1 more rows", "echarts.init(", `\u003cscript\u003e`} {
		if !strings.Contains(h, want) {
			t.Errorf("fragment lacks %q", want)
		}
	}
	if strings.Contains(h, "<script>alert(1)") || strings.Contains(h, "<b>x</b>") {
		t.Error("trace string not escaped")
	}
	if strings.Count(h, "typeof echarts") != 1 || len(h) < len(echartsJS) {
		t.Error("ECharts not inlined once")
	}
}
