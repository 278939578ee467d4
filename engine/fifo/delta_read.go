package fifo

import (
	"k8s.io/client-go/tools/cache"
)

// Get returns a copy of the deltas queued under obj's key (see KeyOf) as a
// cache.Deltas, and whether any are queued. The objects are shared with the
// queue and must be treated as read-only.
func (f *DeltaFIFO) Get(obj interface{}) (item interface{}, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return f.GetByKey(key)
}

// GetByKey returns a copy of the deltas queued under key as a cache.Deltas,
// and whether any are queued.
func (f *DeltaFIFO) GetByKey(key string) (item interface{}, exists bool, err error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	row, ok := f.rows[key]
	if !ok {
		return nil, false, nil
	}
	return dfCopyDeltas(row.deltas), true, nil
}

// Deltas returns a copy of the deltas queued under key, or nil.
func (f *DeltaFIFO) Deltas(key string) cache.Deltas {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if row, ok := f.rows[key]; ok {
		return dfCopyDeltas(row.deltas)
	}
	return nil
}

// List returns the newest object of every queued row, in queue order.
// This copies the whole queue; the UI uses Stats instead.
func (f *DeltaFIFO) List() []interface{} {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]interface{}, 0, f.order.len())
	f.order.each(func(key string) bool {
		out = append(out, f.rows[key].deltas.Newest().Object)
		return true
	})
	return out
}

// ListKeys returns the queued keys in the order Pop will return them.
// This copies the whole queue; the UI uses Stats instead.
func (f *DeltaFIFO) ListKeys() []string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]string, 0, f.order.len())
	f.order.each(func(key string) bool {
		out = append(out, key)
		return true
	})
	return out
}

// Stats returns the counters and the first head rows (none if head <= 0).
// Its cost depends on those rows and the deltas they hold, not on the
// number of rows queued.
func (f *DeltaFIFO) Stats(head int) Stats {
	f.mu.RLock()
	defer f.mu.RUnlock()
	s := Stats{
		Kind:      KindDeltaFIFO,
		Depth:     f.order.len(),
		Deltas:    f.queued,
		Added:     f.stats.added,
		Popped:    f.stats.popped,
		Pops:      f.stats.pops,
		Coalesced: f.stats.coalesced,
		Synced:    f.syncedClosed,
		Closed:    f.closed,
	}
	// A row keeps its place, so the front row is the longest-waiting one.
	if key, ok := f.order.front(); ok {
		s.OldestEnqueued = f.rows[key].enqueued
	}
	if n := min(head, s.Depth); n > 0 {
		s.Head = make([]Item, 0, n)
		f.order.each(func(key string) bool {
			row := f.rows[key]
			s.Head = append(s.Head, Item{Key: key, Types: dfTypesOf(row.deltas), Enqueued: row.enqueued})
			return len(s.Head) < n
		})
	}
	return s
}

func dfTypesOf(ds cache.Deltas) []cache.DeltaType {
	types := make([]cache.DeltaType, len(ds))
	for i, d := range ds {
		types[i] = d.Type
	}
	return types
}

// dfCopyDeltas copies the slice, not the objects, so later appends to the
// row cannot show through the copy.
func dfCopyDeltas(ds cache.Deltas) cache.Deltas {
	out := make(cache.Deltas, len(ds))
	copy(out, ds)
	return out
}

// Rows copies at most max rows from offset on, in pop order, and reports
// how many rows are queued; its cost depends on the rows copied, not on
// the queue's length.
func (f *DeltaFIFO) Rows(offset, max int) (rows []Item, total int) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	total = f.order.len()
	offset = min(offset, total)
	if offset < 0 || max <= 0 {
		return nil, total
	}
	keys := f.order.keys[f.order.head+offset:]
	rows = make([]Item, 0, min(max, len(keys)))
	for _, key := range keys[:min(max, len(keys))] {
		row := f.rows[key]
		rows = append(rows, Item{Key: key, Types: dfTypesOf(row.deltas), Enqueued: row.enqueued})
	}
	return rows, total
}
