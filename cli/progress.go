package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressBar draws a one-line bar on a terminal, or prints a line every few
// seconds when stderr is not a terminal (CI logs). It is safe to call from
// any goroutine.
type progressBar struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	unit    string // "B" for bytes, "" for counts
	tty     bool
	start   time.Time
	last    time.Time
	every   time.Duration
	drawn   bool
	enabled bool
}

func newProgress(label, unit string, quiet bool) *progressBar {
	st, _ := os.Stderr.Stat()
	tty := st != nil && st.Mode()&os.ModeCharDevice != 0
	every := 5 * time.Second
	if tty {
		every = 100 * time.Millisecond
	}
	return &progressBar{w: os.Stderr, label: label, unit: unit, tty: tty, start: time.Now(), every: every, enabled: !quiet}
}

// Update reports done out of total (total 0: unknown).
func (p *progressBar) Update(done, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < p.every && (total == 0 || done < total) {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	var line string
	if total > 0 {
		frac := float64(done) / float64(total)
		if frac > 1 {
			frac = 1
		}
		const width = 30
		n := int(frac * width)
		eta := ""
		if frac > 0.02 && frac < 1 {
			eta = fmt.Sprintf(" eta %.0fs", el/frac-el)
		}
		line = fmt.Sprintf("%s [%s%s] %5.1f%% %s/%s %.1fs%s", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n),
			100*frac, human(done, p.unit), human(total, p.unit), el, eta)
	} else {
		line = fmt.Sprintf("%s %s %.1fs", p.label, human(done, p.unit), el)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Done ends the bar's line.
func (p *progressBar) Done() {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func human(n int64, unit string) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return fmt.Sprintf("%.2fG%s", f/1e9, unit)
	case f >= 1e6:
		return fmt.Sprintf("%.1fM%s", f/1e6, unit)
	case f >= 1e3:
		return fmt.Sprintf("%.1fk%s", f/1e3, unit)
	}
	return fmt.Sprintf("%d%s", n, unit)
}
