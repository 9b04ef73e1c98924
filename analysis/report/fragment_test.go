package report

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
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
	bar.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "VMs (VMs)"}))
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
	// The library is on the page once (LibraryFragment), never in a chart's fragment.
	if len(h) > 4096 || strings.Contains(h, libraryClass) || !strings.Contains(h, "placelabECharts") || !strings.Contains(h, `class="placelab-chart"`) {
		t.Errorf("fragment of %d bytes: the library inlined, or no loader", len(h))
	}
}

// TestLibraryFragment: the library fragment carries ECharts once, gzipped
// (well under the 1 MB of the plain file), and unpacks to the very file.
func TestLibraryFragment(t *testing.T) {
	h := LibraryFragment()
	if n := strings.Count(h, libraryClass); n != 1 {
		t.Errorf("library fragment names %s %d times, want 1", libraryClass, n)
	}
	if len(h) > len(echartsJS)/2 {
		t.Errorf("library fragment of %d bytes, want under half the library's %d", len(h), len(echartsJS))
	}
	i, j := strings.LastIndex(h, `("`), strings.LastIndex(h, `");`)
	if i < 0 || j < i {
		t.Fatal("no payload in the library fragment")
	}
	z, err := base64.StdEncoding.DecodeString(h[i+2 : j])
	if err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(js, echartsJS) {
		t.Errorf("payload unpacks to %d bytes (err %v), want the %d of assets/echarts.min.js", len(js), err, len(echartsJS))
	}
}

// requireJS is Debian's RequireJS (libjs-requirejs), the loader the
// classic Notebook and nbconvert's HTML pages put on every page.
const requireJS = "/usr/share/javascript/requirejs/require.min.js"

// TestFragmentsRenderWithAndWithoutRequireJS draws two chart fragments,
// after the library fragment, on a page without RequireJS and on one with
// it, each page alone in a fresh folder, in headless Chromium: every chart
// draws a canvas with non-blank pixels and the console stays clean, also
// when the library is shown twice. Two pages must not draw: the fragments
// without the library (an exported notebook that loaded ECharts from a
// folder beside it, once moved: issue 32), and the old fragment (the
// library inlined, then the global echarts) under RequireJS.
func TestFragmentsRenderWithAndWithoutRequireJS(t *testing.T) {
	if _, err := Browser(); err != nil || func() bool { _, e := os.Stat(requireJS); return e != nil }() {
		if os.Getenv("PLACELAB_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("chromium and %s are required (apt-get install chromium libjs-requirejs)", requireJS)
		}
		t.Skip("needs chromium and libjs-requirejs")
	}
	var frags []string
	for i, name := range []string{"first", "second"} {
		bar := charts.NewBar()
		bar.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "value (VMs)"}))
		bar.SetXAxis([]string{"a", "b"}).AddSeries(name, []opts.BarData{{Value: 1 + i}, {Value: 3}})
		h, err := Fragment(name, bar, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		frags = append(frags, h)
	}
	lib := LibraryFragment()
	withRequire := `<script src="file://` + requireJS + `"></script>`
	old := `<div class="placelab-chart" id="old" style="width:600px;height:300px"></div><script>` + string(echartsJS) +
		`</script><script>echarts.init(document.getElementById("old")).setOption({xAxis:{data:["a"]},yAxis:{},series:[{type:"bar",data:[1]}]});</script>`
	for _, tc := range []struct {
		name, head string
		body       []string
		ok         bool
	}{
		{"plain.html", "", append([]string{lib}, frags...), true},
		{"requirejs.html", withRequire, append([]string{lib}, frags...), true},
		{"library-twice.html", withRequire, []string{lib, frags[0], lib, frags[1]}, true},
		{"no-library.html", withRequire, frags, false},
		{"old-requirejs.html", withRequire, []string{old}, false},
	} {
		dir := t.TempDir() // the page alone: nothing beside it
		page := write(t, dir, tc.name, "<!DOCTYPE html><html><head>"+tc.head+"</head><body>"+strings.Join(tc.body, "\n")+"</body></html>")
		res, err := CheckNotebookPage(context.Background(), page)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		charts := 0
		for _, b := range tc.body {
			charts += strings.Count(b, `class="placelab-chart"`)
		}
		drawn := res.Charts == charts && len(res.Canvases) == res.Charts
		for _, n := range res.Canvases {
			drawn = drawn && n > 0
		}
		if tc.ok && (!drawn || len(res.Errors) > 0) {
			t.Errorf("%s: charts %d, canvases %v, errors %q", tc.name, res.Charts, res.Canvases, res.Errors)
		}
		if !tc.ok && drawn {
			t.Errorf("%s: drew (canvases %v): the check cannot see the bug", tc.name, res.Canvases)
		}
		if tc.name == "no-library.html" && !strings.Contains(res.DOM, "Chart not drawn: ECharts is not on this page") {
			t.Errorf("%s: the chart does not say why it is not drawn", tc.name)
		}
		if !tc.ok {
			t.Logf("%s: canvases %v, errors %q", tc.name, res.Canvases, res.Errors)
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
