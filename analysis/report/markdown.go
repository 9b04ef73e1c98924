package report

import (
	"fmt"
	"strings"
)

// Markdown renders the page as GitHub-flavoured Markdown for docs/: the
// title, each section's title, note and table (cells as PageCell writes
// them, pipes escaped; at most MaxRows rows, the rest counted), and the
// footer. Charts are left out: the HTML page draws them.
func (p *Page) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	if p.Subtitle != "" {
		fmt.Fprintf(&b, "%s\n\n", p.Subtitle)
	}
	esc := func(s string) string {
		s = strings.ReplaceAll(s, "|", `\|`)
		return strings.ReplaceAll(s, "\n", " ")
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		if s.Note != "" {
			fmt.Fprintf(&b, "%s\n\n", s.Note)
		}
		t := s.Table
		if t == nil || len(t.Columns) == 0 {
			continue
		}
		b.WriteString("|")
		for _, c := range t.Columns {
			fmt.Fprintf(&b, " %s |", esc(c))
		}
		b.WriteString("\n|")
		for range t.Columns {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		max := s.MaxRows
		if max == 0 {
			max = 50
		}
		for i, r := range t.Rows {
			if i == max {
				break
			}
			b.WriteString("|")
			for _, x := range r {
				text, _ := PageCell(x)
				fmt.Fprintf(&b, " %s |", esc(text))
			}
			b.WriteString("\n")
		}
		if n := len(t.Rows) - max; n > 0 {
			fmt.Fprintf(&b, "\n%d more rows: the view behind the section holds them.\n", n)
		}
		b.WriteString("\n")
	}
	if p.Footer != "" {
		fmt.Fprintf(&b, "%s\n", p.Footer)
	}
	return b.String()
}
