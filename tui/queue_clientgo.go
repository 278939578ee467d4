package tui

import (
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// The Queue view of client-go's own informer: it has a depth but no rows
// to show, page, filter or open (see clientgo.go).

// clientGoQueueText is what the Queue view shows instead of rows for
// client-go's own informer: its depth, and how to see the rows; "and step
// it" only where the source can step.
func clientGoQueueText(s *source.Informer, canStep bool) string {
	what := "to see its contents"
	if canStep {
		what += " and step it"
	}
	return "client-go's own informer keeps its queue to itself: depth " + humanize.CountShort(s.Queue.Depth) +
		". Build it with " + engineOption + " " + what + "."
}

// sealed reports that the Queue view shows client-go's own informer on
// its own: a sentence stands where the rows would be.
func (v *queueView) sealed() bool { return isClientGo(v.c.snap()) && !v.c.comparing() }

// renderSealed is the Queue view of client-go's own informer: its depth,
// and how to see its rows.
func (v *queueView) renderSealed(lines []string) string {
	text := clientGoQueueText(v.c.snap(), v.c.caps.proc != nil)
	lines = append(lines, "")
	lines = append(lines, wrapText(text, v.c.width)...)
	if hint := compareHint(v.c); hint != "" {
		out := fit(strings.Join(lines, "\n"), v.c.width, v.c.height-1)
		return out + "\n" + truncate(hint, v.c.width)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}
