package fifo

import "k8s.io/client-go/tools/cache"

// Add queues an Added delta for obj (after the transformer, if any).
func (f *DeltaFIFO) Add(obj interface{}) error {
	return f.write(cache.Added, obj)
}

// Update queues an Updated delta for obj (after the transformer, if any).
func (f *DeltaFIFO) Update(obj interface{}) error {
	return f.write(cache.Updated, obj)
}

// write is Add and Update. The key is computed before taking the lock, to
// keep the critical section short, but even an unkeyable object counts as
// the first write for HasSynced, as in client-go.
func (f *DeltaFIFO) write(t cache.DeltaType, obj interface{}) error {
	key, keyErr := f.KeyOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.markPopulatedLocked()
	if keyErr != nil {
		return cache.KeyError{Obj: obj, Err: keyErr}
	}
	return f.enqueueLocked(key, t, obj)
}

// Delete queues a Deleted delta for obj, unless the deletion would be news
// to nobody: the key has no queued row and knownObjects (when set) does not
// hold it either. That is the case of a delete the last relist already
// reported as a tombstone. A knownObjects lookup error counts as "may
// exist", so the delete is queued. obj may be a
// cache.DeletedFinalStateUnknown; tombstones are never transformed.
func (f *DeltaFIFO) Delete(obj interface{}) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.markPopulatedLocked()
	_, queued := f.rows[key]
	if !queued {
		if f.knownObjects == nil {
			return nil
		}
		_, known, lookupErr := f.knownObjects.GetByKey(key)
		if lookupErr == nil && !known {
			return nil
		}
	}
	return f.enqueueLocked(key, cache.Deleted, obj)
}

// enqueueLocked runs obj through the transformer, unless it is a tombstone
// (tombstones wrap objects that already went through it), and appends the
// result under key. key is KeyOf(obj), computed by the caller from the
// untransformed object, as client-go does. Callers hold mu.
func (f *DeltaFIFO) enqueueLocked(key string, t cache.DeltaType, obj interface{}) error {
	if f.transform != nil {
		if _, tomb := obj.(cache.DeletedFinalStateUnknown); !tomb {
			var err error
			if obj, err = f.transform(obj); err != nil {
				return err
			}
		}
	}
	f.appendLocked(key, t, obj)
	return nil
}

// appendLocked adds a delta to key's row as is, creating the row at the
// back of the queue when key is not queued, and merges a duplicate delete.
// Callers hold mu.
func (f *DeltaFIFO) appendLocked(key string, t cache.DeltaType, obj interface{}) {
	row, queued := f.rows[key]
	if !queued {
		row = &dfRow{enqueued: f.now()}
		f.rows[key] = row
		f.order.push(key)
		f.metrics.depth.Set(float64(f.order.len()))
	}
	before := len(row.deltas)
	row.deltas = dfDedupTail(append(row.deltas, cache.Delta{Type: t, Object: obj}))
	if len(row.deltas) > before {
		// A delta that replaced a duplicate delete is not counted: the
		// counters describe what the queue holds and what left it.
		f.queued++
		countDelta(&f.stats.added, cache.Delta{Type: t, Object: obj})
		if queued {
			f.stats.coalesced++
		}
	}
	f.cond.Broadcast()
}

// dfDedupTail merges the last two deltas of ds when both are Deleted: a
// relist tombstone and a watch delete, or two tombstones, describe one
// deletion. The delete carrying the real final object wins: the older one is
// kept unless it is a cache.DeletedFinalStateUnknown, in which case the newer
// one takes its place. ds is modified in place.
func dfDedupTail(ds cache.Deltas) cache.Deltas {
	n := len(ds)
	if n < 2 || ds[n-1].Type != cache.Deleted || ds[n-2].Type != cache.Deleted {
		return ds
	}
	if _, olderIsTomb := ds[n-2].Object.(cache.DeletedFinalStateUnknown); olderIsTomb {
		ds[n-2] = ds[n-1]
	}
	ds[n-1] = cache.Delta{} // drop the reference held past the new length
	return ds[:n-1]
}
