package report

import (
	"context"
	"os"
	"path/filepath"
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
	for _, want := range []string{"<h4>types &lt;&amp;&gt;</h4>", "&lt;b&gt;x&lt;/b&gt;", "… 1 more rows", "ec.init(", `\u003cscript\u003e`} {
		if !strings.Contains(h, want) {
			t.Errorf("fragment lacks %q", want)
		}
	}
	if strings.Contains(h, "<script>alert(1)") || strings.Contains(h, "<b>x</b>") {
		t.Error("trace string not escaped")
	}
	// The library is loaded once per page, never inlined in a fragment.
	if len(h) > 4096 || !strings.Contains(h, "placelab-assets/echarts.min.js") || !strings.Contains(h, `class="placelab-chart"`) {
		t.Errorf("fragment of %d bytes: the library inlined, or no loader", len(h))
	}
}

// requireJS is Debian's RequireJS (libjs-requirejs), the loader the
// classic Notebook and nbconvert's HTML pages put on every page.
const requireJS = "/usr/share/javascript/requirejs/require.min.js"

// TestFragmentsRenderWithAndWithoutRequireJS draws two chart fragments on a
// page without RequireJS and on one with it, in headless Chromium: every
// chart draws a canvas with non-blank pixels and the console stays clean.
// The old fragment (the library inlined, then the global echarts) is
// checked on the RequireJS page too, where it draws nothing: the bug
// notebooks had in the classic Notebook and in nbconvert's HTML.
func TestFragmentsRenderWithAndWithoutRequireJS(t *testing.T) {
	if _, err := Browser(); err != nil || func() bool { _, e := os.Stat(requireJS); return e != nil }() {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("chromium and %s are required (apt-get install chromium libjs-requirejs)", requireJS)
		}
		t.Skip("needs chromium and libjs-requirejs")
	}
	dir := t.TempDir()
	if err := WriteNotebookAssets(dir); err != nil {
		t.Fatal(err)
	}
	var frags []string
	for i, name := range []string{"first", "second"} {
		bar := charts.NewBar()
		bar.SetXAxis([]string{"a", "b"}).AddSeries(name, []opts.BarData{{Value: 1 + i}, {Value: 3}})
		h, err := Fragment(name, bar, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		frags = append(frags, h)
	}
	page := func(name, head string, body []string) string {
		return write(t, dir, name, "<!DOCTYPE html><html><head>"+head+"</head><body>"+strings.Join(body, "\n")+"</body></html>")
	}
	withRequire := `<script src="file://` + requireJS + `"></script>`
	old := `<div class="placelab-chart" id="old" style="width:600px;height:300px"></div><script>` + string(echartsJS) +
		`</script><script>echarts.init(document.getElementById("old")).setOption({xAxis:{data:["a"]},yAxis:{},series:[{type:"bar",data:[1]}]});</script>`
	for _, tc := range []struct {
		name, head string
		body       []string
		ok         bool
	}{
		{"plain.html", "", frags, true},
		{"requirejs.html", withRequire, frags, true},
		{"old-requirejs.html", withRequire, []string{old}, false},
	} {
		res, err := CheckNotebookPage(context.Background(), page(tc.name, tc.head, tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		drawn := res.Charts == len(tc.body) && len(res.Canvases) == res.Charts
		for _, n := range res.Canvases {
			drawn = drawn && n > 0
		}
		if tc.ok && (!drawn || len(res.Errors) > 0) {
			t.Errorf("%s: charts %d, canvases %v, errors %q", tc.name, res.Charts, res.Canvases, res.Errors)
		}
		if !tc.ok && drawn {
			t.Errorf("%s: the old fragment drew under RequireJS (canvases %v): the check cannot see the bug", tc.name, res.Canvases)
		}
		if !tc.ok {
			t.Logf("%s (the old fragment): canvases %v, errors %q", tc.name, res.Canvases, res.Errors)
		}
	}
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
