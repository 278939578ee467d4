package tui

import (
	"fmt"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"

	"k8s.io/client-go/tools/cache"
)

// stepMsg is the answer of source.Processing.Step, delivered off the UI goroutine.
type stepMsg struct {
	res         source.StepResult
	err         error
	pausedFirst bool // the step paused a running engine first
	batch       bool // the batch step key: source.Processing.StepBatch
}

// narrationNameWidth is the most a listener's name takes of a notified
// line, so a long one leaves room for the callback and the key.
const narrationNameWidth = 32

// narration is the step panel: what happened to the one item popped by
// the last step, in the order the informer did it.
type narration struct {
	msg   stepMsg
	steps int // steps taken since the panel opened
}

// lines is the panel's content, unframed, for at most room lines (0: any
// number). The server's journey of the popped item, when the source knows
// it, takes a line per stage where room allows, else runs on in a few
// lines.
func (n *narration) lines(c *common, w, room int) []string {
	r := n.msg.res
	if len(r.Journey) == 0 || n.msg.err != nil || r.Empty {
		return n.body(c, w, nil)
	}
	out := n.body(c, w, journeyLines(c, r.Journey, w, 0))
	if room <= 0 || len(out) <= room {
		return out
	}
	// Run on, in the rows the rest leaves: two at least, a few at most.
	rest := len(out) - len(r.Journey)
	return n.body(c, w, journeyLines(c, r.Journey, w, min(max(room-rest, 2), journeyMaxLines)))
}

// journeyMaxLines bounds the journey run on in one text, so the store and
// the listeners keep their lines.
const journeyMaxLines = 3

// journeyLines is how the popped item travelled the API server, under a
// "server" label: one stage a line when rows is 0, else the stages joined
// with arrows and wrapped to the panel, in at most rows lines.
func journeyLines(c *common, journey []string, w, rows int) []string {
	st := c.styles
	text := max(w-4-9, 10) // the panel's border and padding, the label
	lines := journey
	if rows > 0 {
		lines = wrapText(strings.Join(journey, " → "), text)
		if len(lines) > rows {
			lines = append(lines[:rows-1:rows-1], truncate(lines[rows-1]+" …", text))
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		label := "         "
		if i == 0 {
			label = "server   "
		}
		out[i] = st.dim.Render(label) + truncate(l, text)
	}
	return out
}

// body is the panel's content with journey (the server's part, already
// laid out) before the popped item.
func (n *narration) body(c *common, w int, journey []string) []string {
	st := c.styles
	r := n.msg.res
	title := fmt.Sprintf("step %d", n.steps)
	if r.Informer != "" {
		title += " · " + r.Informer
	}
	kind := ""
	switch {
	case n.msg.err != nil || r.Empty:
	case r.Kind != "":
		// The engine says which kind of step happened and what it popped.
		if r.Kind == source.StepBatch {
			title += " · batch step"
		} else {
			title += " · single step"
		}
		kind = stepHeadline(r)
	case n.msg.batch && r.Batch > 1:
		title += " · batch step"
		kind = fmt.Sprintf("%s popped at once, as client-go v0.37's batched pop does (up to 1,000 distinct keys, up to a bookmark)", humanize.PluralShort(r.Batch, "item"))
	case n.msg.batch:
		title += " · batch step"
		kind = "one item popped: a DeltaFIFO pops one key, and a RealFIFO batch ends at a bookmark"
	default:
		title += " · single step: one item popped"
	}
	out := []string{st.bold.Render(title)}
	for _, l := range wrapText(kind, max(w-4, 10)) {
		if l != "" {
			out = append(out, st.dim.Render(l))
		}
	}
	if n.msg.pausedFirst {
		out = append(out, st.warn.Render("processing paused so items can be stepped one at a time"))
	}
	switch {
	case n.msg.err != nil:
		out = append(out, st.bad.Render("step failed: "+safe(n.msg.err.Error())))
	case r.Empty:
		out = append(out, "the queue was empty: nothing was popped")
	default:
		bookmark := onlyBookmarks(r.Deltas)
		store := joinOr(r.Store, " → ", "no change")
		if bookmark && len(r.Store) == 0 {
			store = "no object changes; the store records the bookmark's resourceVersion"
		}
		if len(r.Store) > 4 {
			// A batch changes the store once per key: the first, the last
			// and how many.
			store = fmt.Sprintf("%s → … → %s (%d changes)", r.Store[0], r.Store[len(r.Store)-1], len(r.Store))
		}
		out = append(out, journey...)
		if len(r.Keys) <= 1 {
			out = append(out, n.popLine(c, r)) // a batch's keys are in its headline
		}
		out = append(out, st.dim.Render("store    ")+store)
		if len(r.Notifications) == 0 {
			out = append(out, st.dim.Render("notified ")+"no listener ("+quietReason(c, r, bookmark)+")")
		}
		if (len(r.Keys) > 1 || wholeStorePop(r.Deltas)) && len(r.Summary) > 0 {
			// A batch notifies per key, and so does a whole-store item per
			// cached object; per listener and callback reads.
			for i, line := range stepSummaryLines(r) {
				label := "         "
				if i == 0 {
					label = "notified "
				}
				out = append(out, st.dim.Render(label)+line)
			}
			return out
		}
		groups := groupNotifications(r.Notifications)
		nameW := 0
		for _, g := range groups {
			nameW = max(nameW, width(g.Listener))
		}
		nameW = min(nameW, narrationNameWidth)
		for i, g := range groups {
			label := "         "
			if i == 0 {
				label = "notified "
			}
			line := fmt.Sprintf("%s ← %s %s", pad(middleEllipsis(g.Listener, nameW), nameW, false), g.Callback, g.Key)
			if g.n > 1 {
				line += fmt.Sprintf(" ×%d", g.n)
			}
			if g.Detail != "" {
				line += st.dim.Render(" (" + g.Detail + ")")
			}
			out = append(out, st.dim.Render(label)+line)
		}
	}
	return out
}

// notificationGroup is a run of identical notifications, drawn as one line:
// a hot DeltaFIFO key notifies a listener once per delta.
type notificationGroup struct {
	source.StepNotification
	n int
}

// groupNotifications folds runs of the same listener, callback, key and
// detail into one entry with a count, keeping the order.
func groupNotifications(ns []source.StepNotification) []notificationGroup {
	var out []notificationGroup
	for _, n := range ns {
		if k := len(out); k > 0 && out[k-1].StepNotification == n {
			out[k-1].n++
			continue
		}
		out = append(out, notificationGroup{StepNotification: n, n: 1})
	}
	return out
}

// onlyBookmarks reports a pop of bookmarks alone, which never notifies.
func onlyBookmarks(ts []cache.DeltaType) bool {
	for _, t := range ts {
		if t != cache.Bookmark {
			return false
		}
	}
	return len(ts) > 0
}

// quietReason says why a popped item reached no listener.
func quietReason(c *common, r source.StepResult, bookmark bool) string {
	switch s := c.data.byName(r.Informer); {
	case bookmark:
		return "a bookmark carries only a resourceVersion"
	case s != nil && len(s.Listeners) == 0:
		return "no event handler is registered"
	}
	return "a sync reaches only listeners whose resync is due"
}

// popLine says which key left the queue with which deltas, and why there
// may be several: DeltaFIFO coalesces per key, RealFIFO keeps one per event.
func (n *narration) popLine(c *common, r source.StepResult) string {
	// A hot key under DeltaFIFO leaves with hundreds of deltas: runs of a
	// type are counted ("Updated×333") so the line stays readable.
	runs := deltaRun(r.Deltas)
	if runs == "" {
		runs = "no deltas"
	}
	key := r.Key
	if key == "" {
		key = "(no key)" // a whole-store item or a bookmark
	}
	line := c.styles.dim.Render("popped   ") + c.styles.bold.Render(key) + " with " + runs
	if len(r.Deltas) == 1 && len(r.ResourceVersions) == 1 && r.ResourceVersions[0] != "" {
		// The resourceVersion ties the pop to the server's journey above.
		line += " at RV " + r.ResourceVersions[0]
	}
	if len(r.Deltas) > 1 {
		line += c.styles.dim.Render(fmt.Sprintf(" (%d deltas for one key, applied in order)", len(r.Deltas)))
	}
	if len(r.Deltas) == 1 && r.Deltas[0] == cache.Deleted {
		line += c.styles.dim.Render(" (deleted from the store even if absent)")
	}
	return line
}

// render frames the panel in exactly w×h cells.
func (n *narration) render(c *common, w, h int) string {
	if h < 3 {
		return fit("", w, h)
	}
	room := h - 2
	lines := n.lines(c, w, room)
	if len(lines) > room {
		// Say what is cut: a hot key notifies every listener per delta.
		more := len(lines) - room + 1
		lines = append(lines[:room-1], c.styles.dim.Render(fmt.Sprintf("… %d more lines", more)))
	}
	body := fit(strings.Join(lines, "\n"), max(w-4, 1), h-2)
	return c.styles.panel.Width(w).Render(body)
}

// height is how many rows the panel wants, capped at limit.
func (n *narration) height(c *common, w, limit int) int {
	return min(len(n.lines(c, w, limit-2))+2, limit)
}

func joinOr(parts []string, sep, empty string) string {
	if len(parts) == 0 {
		return empty
	}
	return strings.Join(parts, sep)
}
