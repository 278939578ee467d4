package fifo

import (
	"time"

	"k8s.io/client-go/tools/cache"
)

// Stats copies the counters and at most head rows from the front of the
// queue, under the lock; its cost does not depend on the queue's length.
// Each RealFIFO row is one event, so Depth and Deltas are equal, Coalesced
// is always 0, and ReplacedAll/SyncAll rows have an empty Key.
func (f *RealFIFO) Stats(head int) Stats {
	f.lock.Lock()
	defer f.lock.Unlock()
	s := Stats{
		Kind:   KindRealFIFO,
		Depth:  f.items.len(),
		Deltas: f.items.len(),
		Added:  f.added,
		Popped: f.popped,
		Pops:   f.pops,
		Synced: f.syncedClosed,
		Closed: f.closed,
	}
	if f.items.len() > 0 {
		s.OldestEnqueued = time.Unix(0, f.items.at(0).at)
	}
	n := min(max(head, 0), f.items.len())
	if n == 0 {
		return s
	}
	s.Head = make([]Item, n)
	types := make([]cache.DeltaType, n) // one allocation shared by all rows
	for i := range n {
		it := f.items.at(i)
		types[i] = it.delta.Type
		s.Head[i] = Item{Key: it.key, Types: types[i : i+1 : i+1], Enqueued: time.Unix(0, it.at)}
	}
	return s
}

// Rows copies at most max rows from offset on, in pop order, and reports
// how many rows are queued; its cost depends on the rows copied. Keyless
// rows (ReplacedAll, SyncAll, Bookmark) carry their type with an empty Key.
func (f *RealFIFO) Rows(offset, max int) (rows []Item, total int) {
	f.lock.Lock()
	defer f.lock.Unlock()
	total = f.items.len()
	offset = min(offset, total)
	if offset < 0 || max <= 0 {
		return nil, total
	}
	n := min(max, total-offset)
	rows = make([]Item, n)
	for i := range n {
		it := f.items.at(offset + i)
		rows[i] = Item{Key: it.key, Types: []cache.DeltaType{it.delta.Type}, Enqueued: time.Unix(0, it.at)}
	}
	return rows, total
}

// Deltas returns, oldest first, a copy of every queued delta whose key is
// key, or nil when there is none. ReplacedAll, SyncAll and Bookmark items
// have no key and are never returned. It scans the whole queue, so it is
// meant for drilling into one selected key, not for every tick.
func (f *RealFIFO) Deltas(key string) cache.Deltas {
	if key == "" {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	var out cache.Deltas
	for i := 0; i < f.items.len(); i++ {
		if it := f.items.at(i); it.key == key {
			out = append(out, it.delta)
		}
	}
	return out
}
