package instr

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

// Ring is a bounded, lossy history of events. Writers never wait for
// readers: when the ring is full the oldest event is overwritten. Lifecycle
// events (see Event.Lifecycle) are also kept in a second, smaller ring, so
// a flood of per-item events does not push them out: a reader that falls
// behind still gets the lifecycle events of the stretch it missed. Readers
// pull with their own cursor (Since) and learn how many events they
// themselves missed; readers are independent, so one slow reader's misses
// say nothing about another's and never change the ring's counters.
//
// Locking: mu guards buf, next, life and lifeN; the counters are atomics,
// written under mu, so that Stats can be read without taking mu.
type Ring struct {
	mu   sync.Mutex
	buf  []Event
	mask uint64
	next uint64 // sequence number the next event gets; events are numbered from 1

	life     []Event // the newest lifecycle events, by lifeN & lifeMask
	lifeMask uint64
	lifeN    uint64 // lifecycle events ever kept

	emitted     atomic.Uint64
	dropped     atomic.Uint64
	droppedLife atomic.Uint64
	now         func() time.Time
}

// DefaultRingSize is the number of events a ring keeps when no size is given.
const DefaultRingSize = 4096

// NewRing returns a ring holding the most recent size events (rounded up to
// a power of two; DefaultRingSize when size <= 0) and, besides, the most
// recent size/4 lifecycle events (at least 256).
func NewRing(size int) *Ring {
	if size <= 0 {
		size = DefaultRingSize
	}
	n, l := pow2(size), pow2(max(size/4, 256))
	return &Ring{buf: make([]Event, n), mask: uint64(n - 1), next: 1,
		life: make([]Event, l), lifeMask: uint64(l - 1), now: time.Now}
}

func pow2(size int) int {
	n := 1
	for n < size {
		n <<= 1
	}
	return n
}

// Emit records e, stamping its sequence number and, when unset, its time.
// Emitting to a nil ring does nothing.
func (r *Ring) Emit(e Event) {
	if r == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = r.now()
	}
	r.mu.Lock()
	if r.next > uint64(len(r.buf)) {
		// The slot holds event next-len(buf), which leaves the main ring
		// now: it is lost unless the lifecycle ring still holds it.
		if old := r.buf[r.next&r.mask]; !old.Lifecycle() || old.Seq < r.lifeOldestLocked() {
			r.drop(old)
		}
	}
	e.Seq = r.next
	r.buf[r.next&r.mask] = e
	r.next++
	if e.Lifecycle() {
		slot := r.lifeN & r.lifeMask
		if r.lifeN >= uint64(len(r.life)) {
			// Leaving the lifecycle ring: lost if the main ring no longer
			// holds it either.
			if old := r.life[slot]; old.Seq < r.oldestLocked() {
				r.drop(old)
			}
		}
		r.life[slot] = e
		r.lifeN++
	}
	r.emitted.Add(1)
	r.mu.Unlock()
}

// drop counts an event no longer held anywhere.
func (r *Ring) drop(e Event) {
	r.dropped.Add(1)
	if e.Lifecycle() {
		r.droppedLife.Add(1)
	}
}

// oldestLocked is the sequence number of the oldest event in the main ring.
func (r *Ring) oldestLocked() uint64 {
	if size := uint64(len(r.buf)); r.next > size {
		return r.next - size
	}
	return 1
}

// lifeOldestLocked is the sequence number of the oldest lifecycle event the
// lifecycle ring holds; r.next when it holds none.
func (r *Ring) lifeOldestLocked() uint64 {
	held := min(r.lifeN, uint64(len(r.life)))
	if held == 0 {
		return r.next
	}
	return r.life[(r.lifeN-held)&r.lifeMask].Seq
}

// Since returns up to max events with a sequence number >= from, oldest
// first, and the cursor to pass next time. Where the main ring has already
// overwritten part of that range, the lifecycle events of the part still
// held come first; missed is the number of events from from on that this
// reader will never get (the overwritten per-item events, and lifecycle
// events pushed out of both rings). Reading does not change Stats. Pass
// from = 0 to start with the oldest event still held (nothing is missed).
func (r *Ring) Since(from uint64, max int) (events []Event, next uint64, missed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	oldest := r.oldestLocked()
	if from == 0 {
		// Nothing before the oldest held event counts as missed, and
		// neither do the per-item events overwritten between the held
		// lifecycle events: this reader never asked for them.
		defer func() { missed = 0 }()
		from = min(oldest, r.lifeOldestLocked())
	}
	if from > r.next {
		from = r.next
	}
	if from < oldest {
		// The overwritten stretch [from, oldest): its lifecycle events.
		rescued := r.lifeBetweenLocked(from, oldest)
		if max > 0 && len(rescued) >= max {
			rescued = rescued[:max]
			next = rescued[max-1].Seq + 1
			return rescued, next, next - from - uint64(max)
		}
		missed = oldest - from - uint64(len(rescued))
		events, from = rescued, oldest
		if max > 0 {
			max -= len(rescued)
		}
	}
	n := r.next - from
	if max > 0 && n > uint64(max) {
		n = uint64(max)
	}
	if events == nil {
		events = make([]Event, 0, n)
	}
	for s := from; s < from+n; s++ {
		events = append(events, r.buf[s&r.mask])
	}
	return events, from + n, missed
}

// lifeBetweenLocked returns the held lifecycle events with lo <= Seq < hi,
// oldest first.
func (r *Ring) lifeBetweenLocked(lo, hi uint64) []Event {
	var out []Event
	held := min(r.lifeN, uint64(len(r.life)))
	for i := r.lifeN - held; i < r.lifeN; i++ {
		e := r.life[i&r.lifeMask]
		if e.Seq >= hi {
			break
		}
		if e.Seq >= lo {
			out = append(out, e)
		}
	}
	return out
}

// Recent returns up to n of the newest events, oldest first, without
// moving any reader's cursor.
func (r *Ring) Recent(n int) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.next - 1
	if size := uint64(len(r.buf)); held > size {
		held = size
	}
	if n < 0 || uint64(n) > held {
		n = int(held)
	}
	out := make([]Event, 0, n)
	for s := r.next - uint64(n); s < r.next; s++ {
		out = append(out, r.buf[s&r.mask])
	}
	return out
}

// Stats returns the counters without taking the lock.
func (r *Ring) Stats() RingStats {
	return RingStats{Emitted: r.emitted.Load(), Dropped: r.dropped.Load(), DroppedLifecycle: r.droppedLife.Load()}
}

// RingStats are the ring's counters (pipeline.RingStats): what one reader
// lost is the missed count Since returns to it.
type RingStats = pipeline.RingStats
