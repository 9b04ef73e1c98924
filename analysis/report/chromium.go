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
)

// ErrNoBrowser is returned when no headless Chromium is installed.
var ErrNoBrowser = errors.New("report: chromium not found (apt-get install chromium)")

// CheckResult is what a page's self-check saw in a real browser.
type CheckResult struct {
	Charts   int      `json:"charts"`   // charts the page tried to draw
	Rendered int      `json:"rendered"` // charts drawn without an exception
	Errors   []string `json:"errors"`   // console errors and uncaught exceptions
	Canvases []int    `json:"canvases"` // non-transparent pixels per chart canvas
	DOM      string   `json:"-"`        // the document after scripts ran
}

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
		"--window-size=1280,2000", "--virtual-time-budget=10000", "--dump-dom",
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
	return &res, nil
}
