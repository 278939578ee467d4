package instr

import (
	"sync"
	"sync/atomic"
	"time"
)

// heard records when the server last delivered something to an informer.
// Bookmarks, list pages and watch opens are rare and stamped as they
// happen. Watch events are not: reading the clock for each would cost the
// hot path, so the event counters are compared on each upkeep tick and
// Snapshot, and a change is stamped then (at most a tick late).
type heard struct {
	lastHeardNanos    atomic.Int64 // newest of everything below
	lastBookmarkNanos atomic.Int64

	mu         sync.Mutex
	seenEvents uint64
	lastEvent  time.Time
}

// note moves the last-heard time forward to t.
func (h *heard) note(t time.Time) {
	n := t.UnixNano()
	for {
		old := h.lastHeardNanos.Load()
		if n <= old || h.lastHeardNanos.CompareAndSwap(old, n) {
			return
		}
	}
}

func (h *heard) bookmark(t time.Time) {
	h.lastBookmarkNanos.Store(t.UnixNano())
	h.note(t)
}

// events stamps now as the last event time when the count of watch events
// moved since the previous look, and returns the last event time.
func (h *heard) events(count uint64, now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if count != h.seenEvents {
		h.seenEvents, h.lastEvent = count, now
		h.note(now)
	}
	return h.lastEvent
}

// changes sums the watch events that change the cache. Each counter only
// grows, so the sum read later is never smaller than one read earlier.
func (o *ObservedListerWatcher) changes() uint64 {
	return o.watchAdded.Load() + o.watchModified.Load() + o.watchDeleted.Load()
}

// Upkeep dates the watch events seen since the last look to now and
// returns the last event time: call it about once a second so that the
// last event time is never more than that late.
func (o *ObservedListerWatcher) Upkeep(now time.Time) time.Time {
	return o.heard.events(o.changes(), now)
}

func unixTime(nanos int64) time.Time {
	if nanos == 0 {
		return time.Time{}
	}
	return time.Unix(0, nanos)
}
