package fifo

import "k8s.io/client-go/tools/cache"

// realBatchable are the delta types PopBatch may group. ReplacedAll,
// SyncAll and Bookmark act on the whole store, so each goes alone.
func realBatchable(t cache.DeltaType) bool {
	switch t {
	case cache.Added, cache.Updated, cache.Deleted, cache.Replaced, cache.Sync:
		return true
	}
	return false
}

// Pop blocks until an item is queued (or the queue is closed and empty,
// then it returns cache.ErrFIFOClosed), removes the oldest item and calls
// process with it as a one-element cache.Deltas. isInInitialList is true
// while the queue has not synced. Pop returns that Deltas and process's
// error. The item counts towards the initial population only after process
// returns, so HasSynced stays false while the last initial item is
// processed.
func (f *RealFIFO) Pop(process cache.PopProcessFunc) (interface{}, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	if err := f.pause.waitLocked(&f.cond, f); err != nil {
		return nil, err
	}
	initial := !f.syncedClosed
	it := *f.items.at(0)
	f.takeLocked(1)
	defer f.processedLocked(1)
	defer f.traceIfSlow(it.key, 1)()

	ds := cache.Deltas{it.delta}
	err := f.runLocked(func() error { return process(ds, initial) })
	return ds, err
}

// PopBatch blocks like Pop, then takes up to 1000 items from the head: it
// stops before a key already in the batch, before the first item after the
// initial population (so a batch never mixes initial and later items), and
// at a ReplacedAll, SyncAll or Bookmark item, which is taken only when it is
// first and then goes alone. An item whose key cannot be computed is taken
// and ends the batch. A single item goes to processSingle as a one-element
// cache.Deltas, several to processBatch. PopBatch returns their error.
func (f *RealFIFO) PopBatch(processBatch cache.ProcessBatchFunc, processSingle cache.PopProcessFunc) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if err := f.pause.waitLocked(&f.cond, f); err != nil {
		return err
	}
	initial := !f.syncedClosed
	n, key := f.batchLenLocked()
	batch := make([]cache.Delta, n)
	for i := range batch {
		batch[i] = f.items.at(i).delta
	}
	f.takeLocked(n)
	defer f.processedLocked(n)
	defer f.traceIfSlow(key, n)()

	if n == 1 {
		return f.runLocked(func() error { return processSingle(cache.Deltas{batch[0]}, initial) })
	}
	return f.runLocked(func() error { return processBatch(batch, initial) })
}

// batchLenLocked returns how many head items form the next batch (at least
// one; the queue must not be empty) and the first item's key for tracing.
func (f *RealFIFO) batchLenLocked() (int, string) {
	limit := min(f.items.len(), f.batchSize)
	if f.initialPopulationCount > 0 {
		limit = min(limit, f.initialPopulationCount)
	}
	if f.batchKeys == nil {
		f.batchKeys = make(map[string]struct{}, min(limit, 64))
	}
	seen := f.batchKeys
	defer clear(seen) // keeps the map's capacity, drops the keys
	n := 0
	for n < limit {
		d := f.items.at(n).delta
		if !realBatchable(d.Type) {
			if n == 0 {
				n = 1
			}
			break
		}
		// Keys are recomputed from the queued object, as client-go does,
		// rather than trusting the key stored for instrumentation.
		key, err := f.keyOf(d)
		if err != nil {
			n++ // a broken item still leaves the queue, but closes the batch
			break
		}
		if _, dup := seen[key]; dup {
			break
		}
		seen[key] = struct{}{}
		n++
	}
	return n, f.items.at(0).key
}

// SetHoldAfterWait implements Instrumented.
func (f *RealFIFO) SetHoldAfterWait(hold func() bool) {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.pause.hold = hold
}

// PopWaiting implements Instrumented.
func (f *RealFIFO) PopWaiting() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.pause.waiting
}

func (f *RealFIFO) emptyLocked() bool  { return f.items.len() == 0 }
func (f *RealFIFO) closedLocked() bool { return f.closed }

// takeLocked removes the first n items, counting them as popped.
func (f *RealFIFO) takeLocked(n int) {
	for i := 0; i < n; i++ {
		countDelta(&f.popped, f.items.at(i).delta)
	}
	f.pops += uint64(n)
	f.items.drop(n)
	f.metrics.depth.Set(float64(f.items.len()))
}

// processedLocked accounts n processed items against the initial
// population. It runs after processing, with lock held again, even when
// the process function panics.
func (f *RealFIFO) processedLocked(n int) {
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount -= n
		f.markSyncedIfDoneLocked()
	}
}

// runLocked calls process, releasing lock meanwhile when
// UnlockWhileProcessing is set and fewer than two batches are queued; past
// that the lock stays held so producers wait and the queue cannot grow
// without bound. lock is held again when runLocked returns or panics.
func (f *RealFIFO) runLocked(process func() error) error {
	if f.unlockWhileProcessing && f.items.len() < 2*f.batchSize {
		f.processing = true
		f.lock.Unlock()
		defer func() {
			f.lock.Lock()
			f.processing = false
			f.cond.Broadcast() // a Cut may be waiting for this batch
		}()
	}
	return f.metrics.timed(process)
}
