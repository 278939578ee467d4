package fifo

import "k8s.io/client-go/tools/cache"

// Add queues an Added delta for obj. Like Update and Delete it counts as
// the queue's first population when it comes before any Replace.
func (f *RealFIFO) Add(obj interface{}) error { return f.enqueueEvent(cache.Added, obj) }

// Update queues an Updated delta for obj.
func (f *RealFIFO) Update(obj interface{}) error { return f.enqueueEvent(cache.Updated, obj) }

// Delete queues a Deleted delta for obj, whether or not the key is known:
// the consumer decides what a delete of an unknown object means.
func (f *RealFIFO) Delete(obj interface{}) error { return f.enqueueEvent(cache.Deleted, obj) }

func (f *RealFIFO) enqueueEvent(t cache.DeltaType, obj interface{}) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	f.markSyncedIfDoneLocked()
	return f.appendObjectLocked(t, obj, true)
}

// Bookmark queues a Bookmark item carrying resourceVersion so the consumer
// learns the RV in order with the events around it. Without
// EmitDeltaTypeBookmark it does nothing. It never counts as population.
func (f *RealFIFO) Bookmark(resourceVersion string) error {
	if !f.emitBookmarks {
		return nil
	}
	f.lock.Lock()
	defer f.lock.Unlock() // the metrics provider's gauge may panic
	f.appendLocked(realItem{delta: cache.Delta{
		Type:   cache.Bookmark,
		Object: cache.BookmarkInfo{ResourceVersion: resourceVersion},
	}})
	return nil
}

// appendObjectLocked queues one keyed delta. The key must be computable
// before anything is queued. The transformer runs here, once per object on
// its way in, except for tombstones and objects that already went through
// it (transform false: Sync deltas and Replace tombstones built from the
// consumer's store or from queued items).
func (f *RealFIFO) appendObjectLocked(t cache.DeltaType, obj interface{}, transform bool) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	if f.transformer != nil && transform {
		if _, tombstone := obj.(cache.DeletedFinalStateUnknown); !tombstone {
			if obj, err = f.transformer(obj); err != nil {
				return err
			}
		}
	}
	f.appendLocked(realItem{delta: cache.Delta{Type: t, Object: obj}, key: key})
	return nil
}

// appendLocked stamps, counts and queues it, and wakes a waiting consumer.
func (f *RealFIFO) appendLocked(it realItem) {
	it.at = f.now().UnixNano()
	f.items.push(it)
	countDelta(&f.added, it.delta)
	f.cond.Broadcast()
	f.metrics.depth.Set(float64(f.items.len()))
}
