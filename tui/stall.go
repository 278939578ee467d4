package tui

import (
	"fmt"
	"sort"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// stallInfo says whether a listener needs attention and why.
type stallInfo struct {
	stalled    bool
	inCallback time.Duration // how long the current callback has run, 0 when idle
	rising     bool          // backlog grew at each recent point
}

// assessListener flags a listener that has been inside one callback for
// longer than after, or whose backlog keeps growing while it does
// nothing. A growing backlog alone is no stall once the listener returned
// from a callback or delivered anything since the last look
// (history.actedSince): for a second after a long callback returns, the
// points a second apart still say the backlog grew (and the rate says
// 0/s), while the counts say the handler runs. The callback's own time
// needs no such check: a call running longer than after has not
// returned within it.
func assessListener(l *source.Listener, now time.Time, h *history, after time.Duration) stallInfo {
	var s stallInfo
	if l.InCallback != "" {
		s.inCallback = since(now, l.InCallbackSince)
	}
	// The history's points are a second apart; a backlog that has begun
	// to fall since the last one is not rising, whatever those points say.
	s.rising = h.rising(l.Name) && !h.fellSince(l.Name, l.Pending)
	stuck := l.InCallback != "" && s.inCallback > after
	s.stalled = stuck || (s.rising && !h.actedSince(l))
	return s
}

// reason is the short sentence shown next to a stalled listener.
func (s stallInfo) reason(l *source.Listener, after time.Duration) string {
	out := ""
	if l.InCallback != "" && s.inCallback > after {
		out = "in " + l.InCallback + " for " + humanize.Duration(s.inCallback)
		if l.Frame != nil {
			out += ", stuck in " + l.Frame.Function
		}
	}
	if s.rising {
		if out != "" {
			out += ", "
		}
		out += "backlog rising"
	}
	return out
}

// stuckIn names the code a stalled call was found in, with its file's
// whole path when that fits in w cells, else its base name:
// "stuck in main.blockIfLabelled (main.go:44)".
func stuckIn(f *source.StackFrame, w int) string {
	full := fmt.Sprintf("stuck in %s (%s:%d)", f.Function, f.File, f.Line)
	if width(full) <= w {
		return full
	}
	return "stuck in " + f.String()
}

// rankedListener is a listener with its assessment, in display order.
type rankedListener struct {
	stats *source.Listener
	stall stallInfo
}

// rankListeners puts stalled listeners first (longest callback, then largest
// backlog) and keeps the source's order for the rest, so healthy rows do not
// jump around between ticks.
func rankListeners(ls []source.Listener, now time.Time, h *history, after time.Duration) []rankedListener {
	out := make([]rankedListener, len(ls))
	for i := range ls {
		out[i] = rankedListener{stats: &ls[i], stall: assessListener(&ls[i], now, h, after)}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.stall.stalled != b.stall.stalled {
			return a.stall.stalled
		}
		if !a.stall.stalled {
			return false
		}
		if a.stall.inCallback != b.stall.inCallback {
			return a.stall.inCallback > b.stall.inCallback
		}
		return a.stats.Pending > b.stats.Pending
	})
	return out
}
