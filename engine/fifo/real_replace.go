package fifo

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
)

// Replace queues the result of a LIST. With AtomicEvents it is a single
// ReplacedAll item carrying the (transformed) list and resourceVersion.
// Otherwise it queues, in this order: a DeletedFinalStateUnknown for every
// key queued but absent from the list (unless its last queued delta is
// already a delete), one for every key only KnownObjects has, then a
// Replaced delta per listed object.
//
// The first Replace before any Add/Update/Delete fixes the initial
// population: every item queued at that moment, which the consumer must
// process before HasSynced turns true.
func (f *RealFIFO) Replace(list []interface{}, resourceVersion string) error {
	f.lock.Lock()
	// Deferred because the transformer and key function are caller code: the
	// reflector recovers their panics and retries, and must find the queue
	// unlocked when it does.
	defer f.lock.Unlock()
	var err error
	if f.atomicEvents {
		err = f.appendReplacedAllLocked(list, resourceVersion)
	} else {
		err = f.reconcileLocked(list)
	}
	if err == nil && !f.populated {
		f.populated = true
		f.initialPopulationCount = f.items.len()
		f.markSyncedIfDoneLocked()
	}
	return err
}

// appendReplacedAllLocked transforms the whole list first so that a failing
// transform queues nothing.
func (f *RealFIFO) appendReplacedAllLocked(list []interface{}, resourceVersion string) error {
	if f.transformer != nil {
		out := make([]interface{}, len(list))
		for i, obj := range list {
			t, err := f.transformer(obj)
			if err != nil {
				return err
			}
			out[i] = t
		}
		list = out
	}
	f.appendLocked(realItem{delta: cache.Delta{
		Type:   cache.ReplacedAll,
		Object: cache.ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: list},
	}})
	return nil
}

// reconcileLocked expands a non-atomic Replace into tombstones and Replaced
// deltas. Keys are all computed before anything is queued, so a bad key
// leaves the queue untouched; a failing transform may leave a prefix queued,
// as in client-go.
func (f *RealFIFO) reconcileLocked(list []interface{}) error {
	listed := make(map[string]struct{}, len(list))
	for _, obj := range list {
		key, err := f.keyOf(obj)
		if err != nil {
			return cache.KeyError{Obj: obj, Err: err}
		}
		listed[key] = struct{}{}
	}

	// Latest queued delta per key, keys in order of first appearance, so
	// tombstones come out in queue order and carry the newest object.
	var order []string
	latest := make(map[string]cache.Delta)
	for i := 0; i < f.items.len(); i++ {
		it := f.items.at(i)
		key, err := f.keyOf(it.delta.Object)
		if err != nil {
			return cache.KeyError{Obj: it.delta.Object, Err: err}
		}
		if _, seen := latest[key]; !seen {
			order = append(order, key)
		}
		latest[key] = it.delta
	}

	for _, key := range order {
		if _, ok := listed[key]; ok {
			continue
		}
		last := latest[key]
		if last.Type == cache.Deleted {
			continue // the consumer already gets a delete for it
		}
		if err := f.appendObjectLocked(cache.Deleted, cache.DeletedFinalStateUnknown{Key: key, Obj: last.Object}, false); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}

	// Keys the consumer holds but neither the list nor the queue mentions
	// were deleted while we were not watching.
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, ok := latest[key]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.logger, err, "Looking up a known object failed; queueing its tombstone without the object", "key", key)
		case !exists:
			obj = nil
			utilruntime.HandleErrorWithLogger(f.logger, nil, "Known key has no object; queueing its tombstone without the object", "key", key)
		}
		if err := f.appendObjectLocked(cache.Deleted, cache.DeletedFinalStateUnknown{Key: key, Obj: obj}, false); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}

	for _, obj := range list {
		if err := f.appendObjectLocked(cache.Replaced, obj, true); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
	}
	return nil
}

// Resync asks the consumer to re-deliver what it holds. With AtomicEvents
// that is one SyncAll item. Otherwise every KnownObjects key gets a Sync
// delta with the stored object, except keys that have anything queued: the
// stored object is older than that queued event, and syncing it after the
// event would roll the consumer back.
func (f *RealFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock() // the key function and KnownObjects may panic
	return f.resyncLocked()
}

func (f *RealFIFO) resyncLocked() error {
	if f.atomicEvents {
		f.appendLocked(realItem{delta: cache.Delta{Type: cache.SyncAll, Object: cache.SyncAllInfo{}}})
		return nil
	}
	// Without AtomicEvents NewRealFIFO requires knownObjects.
	queued := make(map[string]struct{}, f.items.len())
	for i := 0; i < f.items.len(); i++ {
		it := f.items.at(i)
		key, err := f.keyOf(it.delta.Object)
		if err != nil {
			return cache.KeyError{Obj: it.delta, Err: err}
		}
		queued[key] = struct{}{}
	}
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := queued[key]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		if err != nil {
			utilruntime.HandleErrorWithLogger(f.logger, err, "Looking up a known object failed; not syncing it", "key", key)
			continue
		}
		if !exists {
			utilruntime.HandleErrorWithLogger(f.logger, nil, "Known key has no object; not syncing it", "key", key)
			continue
		}
		if err := f.appendObjectLocked(cache.Sync, obj, false); err != nil {
			return fmt.Errorf("couldn't queue object: %w", err)
		}
	}
	return nil
}
