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
// Instrumentation.Events, the usual set-up), frames read that ring
// directly: cursors are its sequence numbers and Missed is what the ring
// overwrote before this client asked. Informers with rings of their own
// are merged into a ring owned by the agent, filled on each frame request
// (never by the informers, so nothing is added to their path): cursors
// are then the merged ring's sequence numbers. Events a source ring
// overwrote before any frame request drained it are counted in
// EventStats.Dropped, not in a client's Missed.
type eventFeed struct {
	single *instr.Ring // the one ring all informers share; nil when merging
	known  map[string]bool

	mu      sync.Mutex // guards the merge below
	rings   []*instr.Ring
	cursors []uint64
	merged  *instr.Ring
}

func newEventFeed(informers []*engine.Informer, mergedSize int) *eventFeed {
	f := &eventFeed{known: make(map[string]bool, len(informers))}
	for _, inf := range informers {
		f.known[inf.Name()] = true
		if r := inf.Events(); r != nil && !slices.Contains(f.rings, r) {
			f.rings = append(f.rings, r)
		}
	}
	switch len(f.rings) {
	case 0:
		f.single = instr.NewRing(1)
	case 1:
		f.single = f.rings[0]
	default:
		if mergedSize <= 0 {
			mergedSize = instr.DefaultRingSize * len(f.rings)
		}
		f.merged = instr.NewRing(mergedSize)
		f.cursors = make([]uint64, len(f.rings))
	}
	return f
}

// since returns at most max events with sequence >= cursor (0: the oldest
// held) of the informers served, each with its Key set and no object.
func (f *eventFeed) since(cursor uint64, max int) (events []engine.Event, next, missed uint64) {
	ring := f.single
	if ring == nil {
		f.drain()
		ring = f.merged
	}
	events, next, missed = ring.Since(cursor, max)
	out := events[:0]
	for _, e := range events {
		if e.Informer != "" && !f.known[e.Informer] {
			continue // another informer sharing the ring: not served here
		}
		e.Key, e.Obj = e.ObjectKey(), nil
		out = append(out, e)
	}
	return out, next, missed
}

// drain moves the events the source rings got since the last drain into
// the merged ring, ordered by time.
func (f *eventFeed) drain() {
	f.mu.Lock()
	defer f.mu.Unlock()
	var batch []engine.Event
	for i, r := range f.rings {
		evs, next, _ := r.Since(f.cursors[i], 0)
		f.cursors[i] = next
		for _, e := range evs {
			e.Key, e.Obj = e.ObjectKey(), nil // the merged ring keeps no objects alive
			batch = append(batch, e)
		}
	}
	slices.SortStableFunc(batch, func(a, b engine.Event) int { return a.Time.Compare(b.Time) })
	for _, e := range batch {
		f.merged.Emit(e)
	}
}

// stats are the totals of the rings the events come from.
func (f *eventFeed) stats() instr.RingStats {
	if f.merged == nil {
		return f.single.Stats()
	}
	var s instr.RingStats
	for _, r := range f.rings {
		rs := r.Stats()
		s.Emitted += rs.Emitted
		s.Dropped += rs.Dropped
		s.DroppedLifecycle += rs.DroppedLifecycle
	}
	return s
}
