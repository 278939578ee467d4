package tui

import (
	"github.com/informtop/informtop/internal/humanize"
	"github.com/informtop/informtop/source"
)

// client-go's own informer, which an agent observes from outside, shows
// less than informtop's engine: its queue's depth but not its rows, its
// listeners' backlogs as lower bounds and not their buffers, no steps, no
// cuts for verify, no memory estimate. The words here say so where the
// engine's figures would be, so a zero that was never measured does not
// read as one that was.

// clientGoBacklog explains a listener's pending count.
const clientGoBacklog = "client-go's own informer: its backlog is counted from outside, a lower bound"

// isClientGo reports that s is client-go's own informer; a source that
// does not say ("") runs informtop's engine.
func isClientGo(s *source.Informer) bool {
	return s != nil && s.Implementation == source.ImplementationClientGo
}

// pendingText is a listener's backlog: "≥N" when it was counted from
// outside the informer, a lower bound.
func pendingText(l *source.Listener) string {
	if l.PendingEstimated {
		return "≥" + humanize.CountShort(l.Pending)
	}
	return humanize.CountShort(l.Pending)
}

// capacityText is a listener's buffer size; "–" when the source does not
// know it (client-go's own informer), which a 0 would misstate.
func capacityText(l *source.Listener) string {
	if l.Capacity <= 0 {
		return "–"
	}
	return humanize.CountShort(l.Capacity)
}
