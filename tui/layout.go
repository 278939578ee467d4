package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fit makes s exactly h lines of at most w cells each: longer lines are cut
// with an ellipsis, missing lines are blank, trailing blanks are dropped
// (the renderer clears the rest of a line). Every block the UI draws goes
// through it, so nothing ever wraps and a resize never leaves garbage.
func fit(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(truncate(l, w), " ")
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// truncate cuts one line to w cells, ANSI-aware, marking the cut with "…".
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if isASCII(s) {
		if len(s) <= w {
			return s
		}
		if w == 1 {
			return "…"
		}
		return s[:w-1] + "…"
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// pad cuts or right-pads s to exactly w cells; right aligns it instead.
func pad(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	s = truncate(s, w)
	n := w - width(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// width is the number of terminal cells s takes, with a fast path for the
// plain ASCII text that makes up most cells.
func width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// oneLine makes s safe for one cell of one line: a newline would push
// the rest of a table down and a tab's width is the terminal's to decide,
// and both occur in error and panic texts.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// column describes one column of a table the views draw. Columns with a
// lower prio are dropped first when the terminal is narrow; a flex column
// takes whatever width is left (at least its width).
type column struct {
	title string
	width int
	right bool
	flex  bool
	maxw  int // widest a flex column grows; 0 = no limit
	prio  int // 0 = always shown; higher numbers go first when space runs out
	id    int // which cell of a row this column shows
}

// layoutColumns chooses the columns that fit in total cells (one space
// between columns) and widens the flex column to use the rest.
func layoutColumns(cols []column, total int) []column {
	used := func(cs []column) int {
		n := 0
		for i, c := range cs {
			if i > 0 {
				n++
			}
			n += c.width
		}
		return n
	}
	out := append([]column(nil), cols...)
	for used(out) > total {
		drop, worst := -1, 0
		for i, c := range out {
			if c.prio > worst {
				drop, worst = i, c.prio
			}
		}
		if drop < 0 {
			break
		}
		out = append(out[:drop], out[drop+1:]...)
	}
	// Share the rest among flex columns in order, each up to its maxw, so
	// a wide terminal does not push related columns far apart.
	extra := total - used(out)
	for i := range out {
		if extra <= 0 {
			break
		}
		if !out[i].flex {
			continue
		}
		grow := extra
		if out[i].maxw > 0 {
			grow = min(grow, max(out[i].maxw-out[i].width, 0))
		}
		out[i].width += grow
		extra -= grow
	}
	return out
}

// columnWidth is the width of the column showing cell id; 0 when it is
// not shown.
func columnWidth(cols []column, id int) int {
	for _, c := range cols {
		if c.id == id {
			return c.width
		}
	}
	return 0
}

// renderRow lays cells out under cols; cells are indexed by column id.
func renderRow(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := ""
		if c.id < len(cells) {
			v = oneLine(cells[c.id])
		}
		b.WriteString(pad(v, c.width, c.right))
	}
	return strings.TrimRight(b.String(), " ")
}

// renderHeader is renderRow for the column titles.
func renderHeader(cols []column) string {
	cells := make([]string, 0, len(cols))
	ids := make([]column, len(cols))
	for i, c := range cols {
		cells = append(cells, c.title)
		ids[i] = c
		ids[i].id = i
	}
	return renderRow(ids, cells)
}
