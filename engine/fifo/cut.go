package fifo

import "k8s.io/client-go/tools/cache"

// Cut lets a caller read the queue and the consumer's store as one state:
// fn gets every queued delta, oldest first within each key, at a moment
// when no popped item is being processed, and the queue's lock is held
// while fn runs, so nothing is added, popped or applied to the store until
// it returns. fn must be quick (a copy) and must not call into the queue.

// Cut calls fn as described above. Pop processes under mu, so holding mu
// is enough.
func (f *DeltaFIFO) Cut(fn func(queued cache.Deltas)) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	queued := make(cache.Deltas, 0, f.queued)
	f.order.each(func(key string) bool {
		queued = append(queued, f.rows[key].deltas...)
		return true
	})
	fn(queued)
}

// Cut calls fn as described above, first waiting for a batch being
// processed with the lock released (UnlockWhileProcessing) to finish.
func (f *RealFIFO) Cut(fn func(queued cache.Deltas)) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for f.processing {
		f.cond.Wait()
	}
	queued := make(cache.Deltas, f.items.len())
	for i := range queued {
		queued[i] = f.items.at(i).delta
	}
	fn(queued)
}
