package fifo

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
)

// Replace takes in a full list (a relist) atomically. Each listed object
// gets a Replaced delta, or a Sync delta when EmitDeltaTypeReplaced is off
// (the pre-Replaced behaviour); either way the object goes through the
// transformer, since it is fresh from the server. Then every key that was
// known before but is missing from the list gets a Deleted delta carrying a
// cache.DeletedFinalStateUnknown:
//   - keys with a queued row first, in queue order, the tombstone holding
//     the row's newest object (unwrapped if that is itself a tombstone);
//   - then keys only in knownObjects, in its ListKeys order, holding the
//     object knownObjects returns for the key (nil if the lookup fails).
//
// The first Replace before any Add/Update/Delete defines the first batch:
// the rows it touched, all of which must be popped before HasSynced.
// The resource version is not used. On error the list is applied up to
// the failing item, as in client-go.
func (f *DeltaFIFO) Replace(list []interface{}, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	emitted := cache.Sync
	if f.emitReplaced {
		emitted = cache.Replaced
	}
	listed := make(map[string]struct{}, len(list))
	for _, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return cache.KeyError{Obj: obj, Err: err}
		}
		listed[key] = struct{}{}
		if err := f.enqueueLocked(key, emitted, obj); err != nil {
			return fmt.Errorf("couldn't enqueue object: %v", err)
		}
	}

	tombstones := 0
	// Walking the queue in place is safe: a tombstone for a queued key
	// joins that key's row and never adds or moves a key.
	f.order.each(func(key string) bool {
		if _, ok := listed[key]; !ok {
			last := f.rows[key].deltas.Newest().Object
			if tomb, ok := last.(cache.DeletedFinalStateUnknown); ok {
				last = tomb.Obj
			}
			tombstones++
			f.appendLocked(key, cache.Deleted, cache.DeletedFinalStateUnknown{Key: key, Obj: last})
		}
		return true
	})

	if f.knownObjects != nil {
		for _, key := range f.knownObjects.ListKeys() {
			if _, ok := listed[key]; ok {
				continue
			}
			if _, queued := f.rows[key]; queued {
				continue
			}
			last, known, err := f.knownObjects.GetByKey(key)
			switch {
			case err != nil:
				last = nil
				utilruntime.HandleErrorWithLogger(f.logger, err, "Known object lookup failed, queueing a tombstone without object", "key", key)
			case !known:
				last = nil
				f.logger.Info("Key listed by known objects is missing from them, queueing a tombstone without object", "key", key)
			}
			tombstones++
			f.appendLocked(key, cache.Deleted, cache.DeletedFinalStateUnknown{Key: key, Obj: last})
		}
	}

	if !f.populated {
		f.initialRemaining = len(listed) + tombstones
		f.markPopulatedLocked()
	}
	return nil
}

// Resync queues a Sync delta, with the object knownObjects holds, for every
// known key that has no queued row: a key with queued deltas is skipped,
// because the cached object would be older than what is already on its way.
// Sync objects come from the cache and are not transformed again. Without
// knownObjects Resync does nothing. Resync does not count as the first
// write for HasSynced.
func (f *DeltaFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.knownObjects == nil {
		return nil
	}
	for _, listedKey := range f.knownObjects.ListKeys() {
		obj, known, err := f.knownObjects.GetByKey(listedKey)
		if err != nil {
			utilruntime.HandleErrorWithLogger(f.logger, err, "Known object lookup failed, not queueing it for resync", "key", listedKey)
			continue
		}
		if !known {
			f.logger.Info("Key listed by known objects is missing from them, not queueing it for resync", "key", listedKey)
			continue
		}
		// The row is looked up by the object's own key, which is what the
		// Sync delta will be queued under.
		key, err := f.KeyOf(obj)
		if err != nil {
			return cache.KeyError{Obj: obj, Err: err}
		}
		if _, queued := f.rows[key]; queued {
			continue
		}
		f.appendLocked(key, cache.Sync, obj)
	}
	return nil
}
