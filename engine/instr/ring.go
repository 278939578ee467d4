package instr

import (
	"sync"
	"sync/atomic"
	"time"
)

// Ring is a bounded, lossy history of events. Writers never wait for
// readers: when the ring is full the oldest event is overwritten, and that
// overwrite is what the drop counter counts. Readers pull with their own
// cursor (Since) and learn how many events they themselves missed; readers
// are independent, so one slow reader's misses say nothing about another's
// and never change the ring's counters.
//
// Locking: mu guards buf and next; the counters are atomics, written under
// mu, so that Stats can be read without taking mu.
type Ring struct {
	mu   sync.Mutex
	buf  []Event
	mask uint64
	next uint64 // sequence number the next event gets; events are numbered from 1

	emitted atomic.Uint64
	dropped atomic.Uint64
	now     func() time.Time
}

// DefaultRingSize is the number of events a ring keeps when no size is given.
const DefaultRingSize = 4096

// NewRing returns a ring holding the most recent size events (rounded up to
// a power of two; DefaultRingSize when size <= 0).
func NewRing(size int) *Ring {
	if size <= 0 {
		size = DefaultRingSize
	}
	n := 1
	for n < size {
		n <<= 1
	}
	return &Ring{buf: make([]Event, n), mask: uint64(n - 1), next: 1, now: time.Now}
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
		// The slot still holds event next-len(buf): it is lost now, for
		// every reader that has not read it yet.
		r.dropped.Add(1)
	}
	e.Seq = r.next
	r.buf[r.next&r.mask] = e
	r.next++
	r.emitted.Add(1)
	r.mu.Unlock()
}

// Since returns up to max events with a sequence number >= from, oldest
// first, and the cursor to pass next time. missed is the number of events
// from from on that were overwritten before this call: they are this
// reader's loss only, and Stats is not changed by reading. Pass from = 0 to
// start with the oldest event still held (nothing is missed then).
func (r *Ring) Since(from uint64, max int) (events []Event, next uint64, missed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	oldest := uint64(1)
	if size := uint64(len(r.buf)); r.next > size {
		oldest = r.next - size
	}
	if from == 0 {
		from = oldest
	}
	if from < oldest {
		missed = oldest - from
		from = oldest
	}
	if from > r.next {
		from = r.next
	}
	n := r.next - from
	if max > 0 && n > uint64(max) {
		n = uint64(max)
	}
	events = make([]Event, 0, n)
	for s := from; s < from+n; s++ {
		events = append(events, r.buf[s&r.mask])
	}
	return events, from + n, missed
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

// RingStats are the ring's counters. They describe the ring, not any
// reader: what a particular reader lost is the missed count Since returns
// to it.
type RingStats struct {
	// Emitted is the number of events ever emitted.
	Emitted uint64 `json:"emitted"`
	// Dropped is the number of events overwritten to make room for newer
	// ones, each counted once however many readers there are or were:
	// Emitted minus the ring's capacity, once the ring has filled. An
	// event counts as dropped even if every reader had read it before.
	Dropped uint64 `json:"dropped"`
}

// Stats returns the counters without taking the lock.
func (r *Ring) Stats() RingStats {
	return RingStats{Emitted: r.emitted.Load(), Dropped: r.dropped.Load()}
}
