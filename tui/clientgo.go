package tui

import (
	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// client-go's own informer, which an agent observes from outside, shows
// less than informtop's engine: neither its queue's rows nor its depth,
// its listeners' backlogs as lower bounds and not their buffers, no steps,
// no cuts for verify, no memory estimate. The words here say so where the
// engine's figures would be, so a zero that was never measured does not
// read as one that was.

// Why a control key does nothing on a client-go informer, for the status
// line and the help.
const (
	whyClientGoQueue = "client-go's own informer keeps its queue to itself: the agent sees what the watch brings " +
		"and what the handlers get, not the rows between, and cannot step it"
	whyClientGoVerify = "client-go's own informer cannot hand over its cache as of one resourceVersion, so it cannot be verified"
	// clientGoBacklog explains a listener's pending count.
	clientGoBacklog = "client-go's own informer: its backlog is counted from outside, a lower bound"
)

// isClientGo reports that s is client-go's own informer, through an
// agent or read from goroutine dumps; a source that does not say ("")
// runs informtop's engine.
func isClientGo(s *source.Informer) bool {
	return s != nil && (s.Implementation == source.ImplementationClientGo || s.Implementation == source.ImplementationPprof)
}

// isPprof reports that s was read from goroutine dumps (attach --pprof):
// its listeners' counts are unknown, their call times lower bounds.
func isPprof(s *source.Informer) bool {
	return s != nil && s.Implementation == source.ImplementationPprof
}

// noAgent is what the dashboard shows where a figure needs the agent.
const noAgent = "not available without the agent: add one line (docs/agent.md)"

// queueKindText is the queue as the header and titles name it:
// "RealFIFO", or "RealFIFO · client-go" for client-go's own informer.
func queueKindText(c *common, s *source.Informer) string {
	if c.caps.fleet {
		return "" // no series says which queue a process runs
	}
	if isClientGo(s) {
		return s.QueueKind.String() + " · client-go"
	}
	return s.QueueKind.String()
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
