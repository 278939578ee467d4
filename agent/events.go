package agent

import (
	"slices"
	"sync"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
)

// eventFeed reads the informers' events for frames.
//
// When every informer writes to one ring (engine's
// Instrumentation.Events, the usual set-up) and no more can come, frames
// read that ring directly: cursors are its sequence numbers and Missed is
// what the ring overwrote before this client asked. Otherwise (informers
// with rings of their own, or a Set that may bring new ones) the rings
// are merged into a ring owned by the agent, filled on each frame request
// (never by the informers, so nothing is added to their path): cursors
// are then the merged ring's sequence numbers, which stay valid however
// many rings join. A ring that joins is read from its oldest held event.
// Events a source ring overwrote before a frame request drained them are
// marked at the merged sequence number where they would have been, so a
// client reading past that point is told it missed them.
type eventFeed struct {
	single *instr.Ring // the one ring all informers share; nil when merging

	mu      sync.Mutex // guards the merge below
	learned int        // how many of the view's informers (a growing list) were looked at for rings
	rings   []*instr.Ring
	cursors []uint64 // per ring: the next sequence number to drain
	merged  *instr.Ring
	// losses marks, oldest first, where source events were lost.
	losses []loss
}

// loss is a run of source events overwritten before they were drained;
// they belong just before the merged event numbered at.
type loss struct{ at, n uint64 }

// maxLosses bounds the marks kept: a client further behind than that many
// drains is told by the merged ring itself that it missed events.
const maxLosses = 1024

// newEventFeed reads the rings of informers; growing says that more
// informers may come (Options.Informers), so the feed must merge.
func newEventFeed(informers []*engine.Informer, growing bool, mergedSize int) *eventFeed {
	f := &eventFeed{}
	f.learn(informers)
	switch {
	case !growing && len(f.rings) == 0:
		f.single = instr.NewRing(1)
	case !growing && len(f.rings) == 1:
		f.single = f.rings[0]
	default:
		if mergedSize <= 0 {
			mergedSize = instr.DefaultRingSize * max(len(f.rings), 1)
		}
		f.merged = instr.NewRing(mergedSize)
	}
	return f
}

// learn adds the rings of the informers not looked at yet; the caller
// holds mu or owns f. A request may come with an older, shorter list
// than the last one learned: it has nothing new.
func (f *eventFeed) learn(informers []*engine.Informer) {
	if len(informers) <= f.learned {
		return
	}
	for _, inf := range informers[f.learned:] {
		if r := inf.Events(); r != nil && !slices.Contains(f.rings, r) {
			f.rings = append(f.rings, r)
			f.cursors = append(f.cursors, 0)
		}
	}
	f.learned = len(informers)
}

// since returns at most max events with sequence >= cursor (0: the oldest
// held) of the informers served, each with its Key set and no object.
// current is the handler's view; it is read again after the merged ring
// is, so that events another request drained from a ring that just
// joined are not filtered out by an older view (the view only grows).
func (f *eventFeed) since(current func() *view, cursor uint64, max int) (events []engine.Event, next, missed uint64) {
	ring := f.single
	if ring == nil {
		f.drain(current().informers)
		ring = f.merged
	}
	events, next, missed = ring.Since(cursor, max)
	if f.merged != nil {
		missed += f.lostBetween(cursor, events, next)
	}
	v := current()
	out := events[:0]
	for _, e := range events {
		if _, served := v.byName[e.Informer]; e.Informer != "" && !served {
			continue // another informer sharing the ring: not served here
		}
		e.Key, e.Obj = e.ObjectKey(), nil
		out = append(out, e)
	}
	return out, next, missed
}

// drain moves the events the source rings got since the last drain into
// the merged ring, ordered by time, after learning the rings of
// informers new to the feed.
func (f *eventFeed) drain(informers []*engine.Informer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.learn(informers)
	var batch []engine.Event
	var lost uint64
	for i, r := range f.rings {
		evs, next, missed := r.Since(f.cursors[i], 0)
		f.cursors[i] = next
		lost += missed
		for _, e := range evs {
			e.Key, e.Obj = e.ObjectKey(), nil // the merged ring keeps no objects alive
			batch = append(batch, e)
		}
	}
	slices.SortStableFunc(batch, func(a, b engine.Event) int { return a.Time.Compare(b.Time) })
	if lost > 0 {
		// Only drain emits to the merged ring, under mu: the next event
		// it takes is numbered one past those emitted.
		at := f.merged.Stats().Emitted + 1
		f.losses = append(f.losses, loss{at: at, n: lost})
		if len(f.losses) > maxLosses {
			f.losses = slices.Delete(f.losses, 0, len(f.losses)-maxLosses)
		}
	}
	for _, e := range batch {
		f.merged.Emit(e)
	}
}

// lostBetween counts the source events lost where a client's read went:
// from its cursor up to next. A client starting from the oldest held event
// (cursor 0) is not told of losses before the first event it gets, as the
// ring tells it of nothing before that either.
func (f *eventFeed) lostBetween(cursor uint64, events []engine.Event, next uint64) uint64 {
	from := cursor
	if cursor == 0 {
		if len(events) == 0 {
			return 0
		}
		from = events[0].Seq + 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var n uint64
	for _, l := range f.losses {
		if l.at >= from && l.at < next {
			n += l.n
		}
	}
	return n
}

// stats are the totals of the rings the events come from.
func (f *eventFeed) stats() instr.RingStats {
	if f.merged == nil {
		return f.single.Stats()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var s instr.RingStats
	for _, r := range f.rings {
		rs := r.Stats()
		s.Emitted += rs.Emitted
		s.Dropped += rs.Dropped
		s.DroppedLifecycle += rs.DroppedLifecycle
	}
	return s
}
