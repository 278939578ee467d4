package instr

import (
	"slices"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

// Merger merges the events of several rings into one ring of its own, for
// a reader of informers that do not share one ring (or whose rings join
// later). It is filled when read (Since drains the rings first), never by
// the rings' writers, so nothing is added to the pipeline's path.
//
// Cursors are the merged ring's sequence numbers, which stay valid however
// many rings join; a ring that joins is read from its oldest held event.
// Each drain orders what it took by time. Events a ring overwrote before
// a drain took them are marked at the merged sequence number where they
// would have been, so a reader whose read goes past that point is told it
// missed them, as a ring tells a reader what it overwrote.
//
// Merged events carry Key and no object (the merger keeps no object
// alive); a tombstone's Obj is a cache.DeletedFinalStateUnknown holding
// only its key, so Lifecycle still reads it as one.
//
// Safe for concurrent use; mu guards everything but merged's own lock.
type Merger struct {
	mu      sync.Mutex
	rings   []*Ring
	cursors []uint64 // per ring: the next sequence number to drain
	merged  *Ring
	// losses marks, oldest first, where source events were lost.
	losses []loss
}

// loss is a run of source events overwritten before they were drained;
// they belong just before the merged event numbered at.
type loss struct{ at, n uint64 }

// maxLosses bounds the marks kept: a reader further behind than that many
// drains is told by the merged ring itself that it missed events.
const maxLosses = 1024

// NewMerger returns a Merger of no rings whose own ring holds size events
// (DefaultRingSize when size <= 0).
func NewMerger(size int) *Merger { return &Merger{merged: NewRing(size)} }

// Add merges r from its oldest held event on; it reports false, and does
// nothing, for a nil ring or one already merged.
func (m *Merger) Add(r *Ring) bool {
	if r == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.Contains(m.rings, r) {
		return false
	}
	m.rings = append(m.rings, r)
	m.cursors = append(m.cursors, 0)
	return true
}

// Rings is how many rings are merged.
func (m *Merger) Rings() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rings)
}

// Since drains the rings, then returns at most max events of the merged
// ring with sequence number >= from (0: the oldest held), the cursor to
// pass next, and how many events from from on this reader will never get:
// those the merged ring overwrote and those a source ring overwrote
// before a drain took them. A reader starting from the oldest held event
// is not told of losses before the first event it gets, as a ring tells
// it of nothing before that either.
func (m *Merger) Since(from uint64, max int) (events []Event, next, missed uint64) {
	m.Drain()
	events, next, missed = m.merged.Since(from, max)
	return events, next, missed + m.lostBetween(from, events, next)
}

// Drain moves the events the rings got since the last drain into the
// merged ring, ordered by time. Since drains; call it yourself to keep a
// ring from overwriting events between reads.
func (m *Merger) Drain() {
	m.mu.Lock()
	defer m.mu.Unlock()
	var batch []Event
	var lost uint64
	for i, r := range m.rings {
		evs, next, missed := r.Since(m.cursors[i], 0)
		m.cursors[i] = next
		lost += missed
		for _, e := range evs {
			batch = append(batch, withoutObject(e))
		}
	}
	slices.SortStableFunc(batch, func(a, b Event) int { return a.Time.Compare(b.Time) })
	if lost > 0 {
		// Only Drain emits to the merged ring, under mu: the next event it
		// takes is numbered one past those emitted.
		at := m.merged.Stats().Emitted + 1
		m.losses = append(m.losses, loss{at: at, n: lost})
		if len(m.losses) > maxLosses {
			m.losses = slices.Delete(m.losses, 0, len(m.losses)-maxLosses)
		}
	}
	for _, e := range batch {
		m.merged.Emit(e)
	}
}

// withoutObject is e with its key built and its object let go; a
// tombstone stays one.
func withoutObject(e Event) Event {
	tomb := e.Type == pipeline.EventDistribute && e.Lifecycle()
	e.Key, e.Obj = e.ObjectKey(), nil
	if tomb {
		e.Obj = cache.DeletedFinalStateUnknown{Key: e.Key}
	}
	return e
}

// lostBetween counts the source events lost where a read went: from from
// up to next.
func (m *Merger) lostBetween(from uint64, events []Event, next uint64) uint64 {
	if from == 0 {
		if len(events) == 0 {
			return 0
		}
		from = events[0].Seq + 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var n uint64
	for _, l := range m.losses {
		if l.at >= from && l.at < next {
			n += l.n
		}
	}
	return n
}

// Stats are the totals of the merged rings: what their writers emitted
// and what they dropped, not the merged ring's own.
func (m *Merger) Stats() RingStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s RingStats
	for _, r := range m.rings {
		rs := r.Stats()
		s.Emitted += rs.Emitted
		s.Dropped += rs.Dropped
		s.DroppedLifecycle += rs.DroppedLifecycle
	}
	return s
}
