package processor

import (
	"slices"
	"time"
)

// defaultLatencyWindow is the number of recent handler calls kept for
// percentiles when Options.LatencyWindow is not set.
const defaultLatencyWindow = 256

// latencyWindow keeps the durations of the most recent handler calls in a
// fixed ring, so recording is O(1) and allocation-free on the hot path.
// It is not safe for concurrent use; the owning Listener's mu guards it.
type latencyWindow struct {
	buf  []time.Duration
	next int  // slot the next duration goes to
	full bool // every slot holds a duration
}

func newLatencyWindow(size int) latencyWindow {
	if size <= 0 {
		size = defaultLatencyWindow
	}
	return latencyWindow{buf: make([]time.Duration, size)}
}

func (w *latencyWindow) record(d time.Duration) {
	w.buf[w.next] = d
	w.next++
	if w.next == len(w.buf) {
		w.next, w.full = 0, true
	}
}

// recorded returns a copy of the held durations, in no particular order.
func (w *latencyWindow) recorded() []time.Duration {
	if w.full {
		return slices.Clone(w.buf)
	}
	return slices.Clone(w.buf[:w.next])
}
