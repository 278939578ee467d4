package attach

import (
	"sort"
	"sync"

	"github.com/informtop/informtop/agent/source"
)

// eventBufferSize is how many events the local buffer keeps for readers
// that pull less often than the poller fetches.
const eventBufferSize = 16384

// eventBuffer holds the newest events fetched from the agent under
// sequence numbers of its own: consecutive, except that every event the
// agent reported missed takes a number that no event gets. The agent's
// own numbers cannot serve: they start again when the agent restarts, and
// an agent skips the events of informers it does not serve, which are no
// loss. Readers read it with their own cursor, like instr.Ring.Since, and
// every number between their cursor and Next that they do not get is one
// event lost, here or in the agent.
//
// Locking: mu guards every field.
type eventBuffer struct {
	mu    sync.Mutex
	buf   []source.Event // ring; buf[(head+i)%len(buf)] is the i-th oldest held
	head  int
	count int
	next  uint64 // the number the next event gets; numbers start at 1
}

func newEventBuffer(size int) *eventBuffer {
	return &eventBuffer{buf: make([]source.Event, size), next: 1}
}

// add appends events, oldest first, after skipping missed numbers for the
// events the agent lost before them.
func (b *eventBuffer) add(events []source.Event, missed uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next += missed
	for _, e := range events {
		e.Seq = b.next
		b.next++
		i := (b.head + b.count) % len(b.buf)
		if b.count == len(b.buf) {
			b.head = (b.head + 1) % len(b.buf)
		} else {
			b.count++
		}
		b.buf[i] = e
	}
}

func (b *eventBuffer) at(i int) *source.Event { return &b.buf[(b.head+i)%len(b.buf)] }

// since returns up to max events (all when max <= 0) with sequence
// numbers >= from, oldest first, the cursor to pass next time and how many
// sequence numbers in [from, next) the reader does not get. from = 0
// starts at the oldest event held; a gap after it (events the agent lost)
// still counts as missed.
func (b *eventBuffer) since(from uint64, max int) (events []source.Event, next, missed uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	oldest := b.next
	if b.count > 0 {
		oldest = b.at(0).Seq
	}
	if from == 0 {
		from = oldest
	}
	if from > b.next {
		from = b.next
	}
	i := sort.Search(b.count, func(i int) bool { return b.at(i).Seq >= from })
	n := b.count - i
	if max > 0 && n > max {
		n = max
	}
	events = make([]source.Event, n)
	for j := range events {
		events[j] = *b.at(i + j)
	}
	next = b.next
	if n > 0 && i+n < b.count {
		next = events[n-1].Seq + 1
	}
	return events, next, next - from - uint64(n)
}
