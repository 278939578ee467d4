package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// The source's notes (a scenario's narration) get a panel of their own
// above the footer: the current notes wrapped, never cut to one line and
// never replaced by a status or an error. Every note shown is kept, so the
// history key opens what was said before, scrollable.

const (
	// noteHistoryMax bounds the kept notes; a scenario says a few dozen.
	noteHistoryMax = 500
	// notePanelMaxLines is the least of the most rows the panel's text
	// takes (5/12 of the screen when that is more).
	notePanelMaxLines = 3
)

// noteEntry is one note as it first appeared.
type noteEntry struct {
	text string
	at   time.Time // the snapshot time it first showed
}

// noteLog remembers what the source narrated, step by step. A demo's
// notes are the scenario's lines followed by live status lines that change
// every tick; only the lines that stayed the same for a whole step (while
// its headline, the first note, stood) are kept, so the history reads as
// the narration and not as a ticker.
type noteLog struct {
	entries []noteEntry
	head    string    // the current step's headline
	start   time.Time // when it appeared
	stable  []string  // its lines unchanged so far, in order
	started bool
}

// observe takes one tick's notes.
func (l *noteLog) observe(notes []string, at time.Time) {
	head := ""
	if len(notes) > 0 {
		head = notes[0]
	}
	if l.started && head == l.head {
		present := make(map[string]bool, len(notes))
		for _, n := range notes {
			present[n] = true
		}
		kept := l.stable[:0]
		for _, n := range l.stable {
			if present[n] {
				kept = append(kept, n)
			}
		}
		l.stable = kept
		return
	}
	l.flush()
	l.started, l.head, l.start = true, head, at
	l.stable = nil
	for _, n := range notes {
		if n != "" {
			l.stable = append(l.stable, n)
		}
	}
}

// flush keeps the step that ends.
func (l *noteLog) flush() {
	for _, n := range l.stable {
		l.entries = append(l.entries, noteEntry{text: n, at: l.start})
	}
	if over := len(l.entries) - noteHistoryMax; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
}

// all is the kept notes and the current step's steady lines, oldest first.
func (l *noteLog) all() []noteEntry {
	out := append([]noteEntry(nil), l.entries...)
	for _, n := range l.stable {
		out = append(out, noteEntry{text: n, at: l.start})
	}
	return out
}

// notePanelLines is the narration panel's content for a w×h terminal: a
// rule naming the history key (when there are rows to spare), then the
// current notes wrapped, at most notePanelMaxLines of them (one on a
// terminal under 24 rows) and spare more for live status lines the panel
// would otherwise hide; nil when the source has nothing to say.
func notePanelLines(c *common, w, h, spare int) []string {
	notes := c.data.notes
	if len(notes) == 0 {
		return nil
	}
	st := c.styles
	// Live status lines get only the rows the view can spare.
	// Status lines (a backlog, a count) follow the note: every line from
	// the first that changed while the note stood on is one.
	log := &c.data.noteLog
	status := len(notes)
	if log.head == notes[0] {
		if i := slices.IndexFunc(notes, func(n string) bool { return !slices.Contains(log.stable, n) }); i >= 0 {
			status = i
		}
	}
	live := func(i int) bool { return i >= status }
	var text []string
	var isLive []bool
	script := 0
	for i, n := range notes {
		prefix := "  "
		if i == 0 {
			prefix = "▸ "
		}
		for j, l := range wrapText(n, max(w-2, 10)) {
			if j > 0 {
				prefix = "  "
			}
			text = append(text, prefix+l)
			isLive = append(isLive, live(i))
			if !live(i) {
				script++
			}
		}
	}
	// The note takes up to 5/12 of the screen (10 rows at 24, 20 at 48):
	// its second sentence is often the lesson, and the view above folds
	// before it is cut. With its status lines the panel takes a quarter
	// of the screen, or one row more than the note.
	limit := max(notePanelMaxLines, h*5/12)
	if h < 24 {
		limit = 1
	}
	if limit > 1 {
		limit = min(limit, max(h/4, script+1)) + spare
	}
	if len(text) > limit {
		if limit == 1 {
			// The one line keeps its text; the footer names the key.
			text = text[:1]
		} else {
			hidden := 0
			// Live lines go first, from the end, then the note's end.
			for i := len(text) - 1; i >= 0 && len(text) > limit-1; i-- {
				if isLive[i] {
					text = slices.Delete(text, i, i+1)
					hidden++
				}
			}
			if len(text) > limit-1 {
				hidden += len(text) - (limit - 1)
				text = text[:limit-1]
			}
			text = append(text, st.dim.Render(fmt.Sprintf("  … %d more lines · %s: narration history", hidden, c.keys.Notes.Help().Key)))
		}
	}
	for i := range text {
		text[i] = st.accent.Render(text[i])
	}
	if h < 30 {
		return text
	}
	label := " narration "
	if k := c.keys.Notes.Help().Key; k != "" {
		label += "· " + k + " history "
	}
	rule := st.dim.Render("──" + label + strings.Repeat("─", max(w-width(label)-2, 0)))
	return append([]string{rule}, text...)
}

// noteHistory is the overlay listing every note kept, oldest first, with
// the time since the first; it scrolls like a pager and opens at the end.
type noteHistory struct {
	off    int  // first line shown
	atEnd  bool // follow new notes while scrolled to the end
	height int  // lines of text that fit, as of the last render
}

func newNoteHistory() *noteHistory { return &noteHistory{atEnd: true} }

// noteHistoryLines are the kept notes wrapped for width w.
func noteHistoryLines(c *common, w int) []string {
	st := c.styles
	entries := c.data.noteLog.all()
	var out []string
	var first time.Time
	if len(entries) > 0 {
		first = entries[0].at
	}
	for _, e := range entries {
		stamp := pad("+"+humanize.Duration(since(e.at, first)), 7, true) + " "
		for j, l := range wrapText(e.text, max(w-8, 10)) {
			if j > 0 {
				stamp = strings.Repeat(" ", 8)
			}
			out = append(out, st.dim.Render(stamp)+l)
		}
	}
	return out
}

// update scrolls; done reports the overlay closing.
func (n *noteHistory) update(msg tea.KeyPressMsg, k *keyMap) (done bool) {
	page := max(n.height, 1)
	switch {
	case key.Matches(msg, k.Back, k.Notes, k.Help):
		return true
	case key.Matches(msg, k.Up):
		n.off--
	case key.Matches(msg, k.Down):
		n.off++
	case key.Matches(msg, k.PageUp):
		n.off -= page
	case key.Matches(msg, k.PageDown):
		n.off += page
	case key.Matches(msg, k.Top):
		n.off = 0
	case key.Matches(msg, k.Bottom):
		n.atEnd = true
		return false
	default:
		return false
	}
	n.atEnd = false
	return false
}

// render draws the overlay in w×h cells.
func (n *noteHistory) render(c *common, w, h int) string {
	st := c.styles
	lines := noteHistoryLines(c, max(w-4, 1))
	n.height = max(h-4, 1) // border, title and the position line
	last := max(len(lines)-n.height, 0)
	if n.atEnd || n.off > last {
		n.off = last
	}
	n.off = max(n.off, 0)
	if n.off == last {
		n.atEnd = true
	}
	hi := min(n.off+n.height, len(lines))
	title := st.bold.Render("narration history") + st.dim.Render(" · "+humanize.PluralShort(len(c.data.noteLog.all()), "note")+", oldest first")
	out := []string{title}
	if len(lines) == 0 {
		out = append(out, st.dim.Render("nothing narrated yet"))
	}
	out = append(out, lines[n.off:hi]...)
	if n.off > 0 || hi < len(lines) {
		out = append(out, st.dim.Render(fmt.Sprintf("lines %d–%d of %d · ↑/↓ pgup/pgdown scroll", n.off+1, hi, len(lines))))
	}
	return st.panel.Render(fit(strings.Join(out, "\n"), max(w-4, 1), max(h-2, 1)))
}
