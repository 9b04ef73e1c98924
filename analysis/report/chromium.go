package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrNoBrowser is returned when no headless Chromium is installed.
var ErrNoBrowser = errors.New("report: chromium not found (apt-get install chromium)")

// CheckResult is what a page's self-check saw in a real browser.
type CheckResult struct {
	Charts   int      `json:"charts"`   // charts the page tried to draw
	Rendered int      `json:"rendered"` // charts drawn without an exception
	Errors   []string `json:"errors"`   // console errors and uncaught exceptions
	Canvases []int    `json:"canvases"` // non-transparent pixels per chart canvas
	// Window is the window's width (CheckWidth), Tables what each table's
	// scroll box measured, Raw the table cells of the document that print
	// a missing value as NULL, <nil>, NaN, null or undefined (none on
	// placelab's pages).
	Window int          `json:"window"`
	Tables []TableCheck `json:"tables"`
	Raw    []string     `json:"raw"`
	DOM    string       `json:"-"` // the document after scripts ran
}

// TableCheck is one table of a page as the browser laid it out: the width
// of its scroll box and of the section holding it, the table's own width
// (wider than the box: it scrolls) and whether its first column is sticky
// (stays in view while it scrolls).
type TableCheck struct {
	Container int  `json:"container"`
	Section   int  `json:"section"`
	Width     int  `json:"width"`
	Sticky    bool `json:"sticky"`
}

// CheckWidth is the window width, in CSS pixels, pages are checked at.
const CheckWidth = 1400

// Browser finds a Chromium binary.
func Browser() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

var selfcheckRe = regexp.MustCompile(`(?s)<pre id="selfcheck">(.*?)</pre>`)

// Check loads a written page in headless Chromium with its self-check on,
// and returns what the page reported: charts drawn, console errors and
// non-blank pixels per canvas.
func Check(ctx context.Context, page string) (*CheckResult, error) {
	bin, err := Browser()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "placelab-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--disable-quic", "--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,2000", CheckWidth), "--virtual-time-budget=10000", "--dump-dom",
		"file://"+abs+"#selfcheck")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("report: chromium: %v: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("report: chromium: %w", err)
	}
	m := selfcheckRe.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("report: page %s published no self-check (did its script run?)", page)
	}
	var res CheckResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		return nil, fmt.Errorf("report: self-check: %w", err)
	}
	res.DOM = string(out)
	for _, m := range rawCellRe.FindAllStringSubmatch(res.DOM, -1) {
		res.Raw = append(res.Raw, html.UnescapeString(m[1]))
	}
	return &res, nil
}

// rawCellRe matches a table cell of the document that prints a missing
// value raw (CheckResult.Raw).
var rawCellRe = regexp.MustCompile(`<t[dh][^>]*>\s*(NULL|&lt;nil&gt;|NaN|null|undefined)\s*</t[dh]>`)

// errorCapture collects console errors and uncaught exceptions from the
// first script on into window.placelabErrors, which a page's self-check
// reports: placelab's pages carry it, and CheckNotebookPage adds it to a
// notebook's exported page.
const errorCapture = `<script>
window.placelabErrors = [];
(function () {
  var orig = console.error;
  console.error = function () { window.placelabErrors.push([].join.call(arguments, ' ')); orig.apply(console, arguments); };
  window.addEventListener('error', function (e) { window.placelabErrors.push(String(e.message || e.type) + (e.filename ? ' (' + e.filename + ')' : '')); }, true);
})();
</script>
`

// notebookCheckTail makes a page of notebook fragments (an nbconvert HTML
// export) report on itself like placelab's own pages: after the charts had
// time to load, every .placelab-chart's non-blank canvas pixels (0 when it
// drew no canvas).
const notebookCheckTail = `<script>
setTimeout(function () {
  var check = { charts: 0, rendered: 0, errors: window.placelabErrors, canvases: [] };
  document.querySelectorAll('.placelab-chart').forEach(function (el) {
    check.charts++;
    var cv = el.querySelector('canvas'), n = 0;
    if (cv) {
      check.rendered++;
      var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      for (var i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
    }
    check.canvases.push(n);
  });
  var pre = document.createElement('pre'); pre.id = 'selfcheck';
  pre.textContent = JSON.stringify(check); document.body.appendChild(pre);
}, 4000);
</script>
`

// CheckNotebookPage loads an HTML page of notebook fragments (such as
// jupyter nbconvert --to html writes) in headless Chromium and reports its
// charts: how many, which drew a canvas, their non-blank pixels and the
// console's errors. The page is checked as a copy beside it, with the
// self-check scripts added, so relative paths resolve as they do for the
// page itself (a page checked alone in its folder shows whether it needs
// anything beside it).
func CheckNotebookPage(ctx context.Context, page string) (*CheckResult, error) {
	b, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.Index(s, "<head>")
	j := strings.LastIndex(s, "</body>")
	if i < 0 || j < 0 {
		return nil, fmt.Errorf("report: %s: no <head> or </body>", page)
	}
	s = s[:i+6] + errorCapture + s[i+6:j] + notebookCheckTail + s[j:]
	cp := strings.TrimSuffix(page, ".html") + ".selfcheck.html"
	if err := os.WriteFile(cp, []byte(s), 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(cp)
	return Check(ctx, cp)
}
