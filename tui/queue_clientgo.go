package tui

import (
	"strings"
)

// The Queue view of client-go's own informer: it has a depth but no rows
// to show, page, filter or open (see clientgo.go).

// clientGoQueueText is what the Queue view shows instead of rows for
// client-go's own informer.
func clientGoQueueText() string {
	return "client-go's own informer keeps its queue to itself: the agent sees what the watch brings " +
		"and what the handlers get (Pipeline, 1), not the rows between."
}

// sealed reports that the Queue view shows an informer whose rows it
// cannot read, on its own (client-go's own informer; a fleet's, whose
// series hold only the depth): a sentence stands where the rows would be.
func (v *queueView) sealed() bool {
	return (isClientGo(v.c.snap()) || v.c.caps.fleet) && !v.c.comparing()
}

// renderSealed is the Queue view of client-go's own informer: its depth,
// and how to see its rows.
func (v *queueView) renderSealed(lines []string) string {
	text := clientGoQueueText()
	if v.c.caps.fleet {
		text = whySeriesOnly
	}
	lines = append(lines, "")
	lines = append(lines, wrapText(text, v.c.width)...)
	if hint := compareHint(v.c); hint != "" {
		out := fit(strings.Join(lines, "\n"), v.c.width, v.c.height-1)
		return out + "\n" + truncate(hint, v.c.width)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}
