package processor

import (
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

// backlog is a listener's queue of notifications: a ring that doubles when
// full and never shrinks, as client-go v0.37's processorListener holds its
// pendingNotifications in a buffer.RingGrowing (not a buffer.Ring, which
// would give grown storage back), so the capacity shown is client-go's.
// Unlike RingGrowing it can be read without consuming, so the UI can show
// what a listener still owes. Not safe for concurrent use; the listener's
// mu guards it.
type backlog struct {
	data []entry
	head int // index of the oldest entry
	n    int // entries held
}

func newBacklogOf(size int) *backlog {
	return &backlog{data: make([]entry, size)}
}

// WriteOne appends e, growing the ring when it is full.
func (b *backlog) WriteOne(e entry) {
	if b.n == len(b.data) {
		grown := make([]entry, max(2*len(b.data), 1))
		for i := range b.n {
			grown[i] = b.at(i)
		}
		b.data, b.head = grown, 0
	}
	b.data[(b.head+b.n)%len(b.data)] = e
	b.n++
}

// ReadOne removes and returns the oldest entry.
func (b *backlog) ReadOne() (entry, bool) {
	if b.n == 0 {
		return entry{}, false
	}
	e := b.data[b.head]
	b.data[b.head] = entry{} // let the object go
	b.head = (b.head + 1) % len(b.data)
	b.n--
	return e, true
}

// at is the i-th oldest entry; i < n.
func (b *backlog) at(i int) entry { return b.data[(b.head+i)%len(b.data)] }

// Len is the number of entries held.
func (b *backlog) Len() int { return b.n }

// Cap is the current storage size.
func (b *backlog) Cap() int { return len(b.data) }

// peek copies at most max of the oldest entries as Pending rows.
func (b *backlog) peek(max int) []pipeline.Pending {
	out := make([]pipeline.Pending, 0, min(max, b.n))
	for i := range min(max, b.n) {
		out = append(out, b.at(i).pending())
	}
	return out
}

// pending describes the entry for the UI.
func (e entry) pending() pipeline.Pending {
	return pipeline.Pending{Callback: e.callback(), Key: instr.KeyOf(e.object()), Sync: e.isSync()}
}
