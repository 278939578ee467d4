package indexer

import (
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
)

// Add stores obj under its key, replacing any object already there; in the
// store (unlike in the informer) Add and Update behave the same.
func (i *Indexer) Add(obj any) error {
	key, err := i.keyFunc(obj)
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	i.put(key, obj, &i.adds)
	return nil
}

// Update stores obj under its key, adding it when absent.
func (i *Indexer) Update(obj any) error {
	key, err := i.keyFunc(obj)
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	i.put(key, obj, &i.updates)
	return nil
}

// put stores obj under key and counts the operation in counter.
func (i *Indexer) put(key string, obj any, counter *atomic.Uint64) {
	rv, hasRV := resourceVersionOf(obj)
	i.mu.Lock()
	defer i.mu.Unlock() // deferred: an index function may panic
	i.putLocked(key, obj)
	if hasRV {
		i.setRVLocked(rv)
	}
	counter.Add(1)
	i.gen.Add(1)
}

// putLocked stores obj and refiles it. Caller holds the write lock.
func (i *Indexer) putLocked(key string, obj any) {
	old := i.items[key]
	i.items[key] = obj
	i.reindexLocked(key, old, obj)
}

// Delete removes the object stored under obj's key, if any. obj may be a
// cache.DeletedFinalStateUnknown when the key function understands it. When
// obj carries object metadata its resourceVersion becomes the store's last
// seen one, even if nothing was stored under the key.
func (i *Indexer) Delete(obj any) error {
	key, err := i.keyFunc(obj)
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	rv, hasRV := resourceVersionOf(obj)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.deleteLocked(key)
	if hasRV {
		i.setRVLocked(rv)
	}
	i.deletes.Add(1)
	i.gen.Add(1)
	return nil
}

// deleteLocked removes key and its index entries. Caller holds the write lock.
func (i *Indexer) deleteLocked(key string) {
	old, ok := i.items[key]
	if !ok {
		return
	}
	i.reindexLocked(key, old, nil)
	delete(i.items, key)
}

// Get returns the object stored under obj's key.
func (i *Indexer) Get(obj any) (item any, exists bool, err error) {
	key, err := i.keyFunc(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return i.GetByKey(key)
}

// GetByKey returns the object stored under key. It never fails.
func (i *Indexer) GetByKey(key string) (item any, exists bool, err error) {
	i.mu.RLock()
	item, exists = i.items[key]
	i.mu.RUnlock()
	return item, exists, nil
}

// List returns every stored object, in no particular order. The objects are
// shared with the store and must be treated as read-only.
func (i *Indexer) List() []any {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]any, 0, len(i.items))
	for _, obj := range i.items {
		out = append(out, obj)
	}
	return out
}

// ListKeys returns every stored key, in no particular order (see SortedKeys).
func (i *Indexer) ListKeys() []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]string, 0, len(i.items))
	for key := range i.items {
		out = append(out, key)
	}
	return out
}

// Replace makes list the store's whole content, rebuilds every index from
// scratch and records resourceVersion as the last seen one. If any object
// has no key, the store is left untouched and the KeyError is returned.
// The store takes ownership of list. It counts as one replace and as what
// it did to each key: an add for a new one, an update for one already
// stored, a delete for one the list no longer has, so the counters read
// the same whether a list arrives as one Replace (RealFIFO's atomic
// ReplacedAll) or object by object (DeltaFIFO).
func (i *Indexer) Replace(list []any, resourceVersion string) error {
	_, err := i.replace(list, resourceVersion, false)
	return err
}

// Replacement is what ReplaceAll replaced. Old is the map the store held
// before, handed over to the caller: the store no longer reads or writes
// it.
type Replacement struct {
	// Keys are the listed objects' keys, in list order.
	Keys []string
	// Old is what was stored before, by key: a listed key found there
	// was updated, one missing was added.
	Old map[string]any
	// Gone are the keys of Old the list no longer has.
	Gone []string
}

// ReplaceAll is Replace that also says what it replaced, so an informer's
// relist can tell its handlers which objects were added, updated and gone
// without looking every key up again (nor computing it twice).
func (i *Indexer) ReplaceAll(list []any, resourceVersion string) (Replacement, error) {
	return i.replace(list, resourceVersion, true)
}

func (i *Indexer) replace(list []any, resourceVersion string, report bool) (Replacement, error) {
	var r Replacement
	if report {
		r.Keys = make([]string, len(list))
	}
	items := make(map[string]any, len(list))
	for n, obj := range list {
		key, err := i.keyFunc(obj)
		if err != nil {
			return Replacement{}, cache.KeyError{Obj: obj, Err: err}
		}
		items[key] = obj // a repeated key keeps its last object
		if report {
			r.Keys[n] = key
		}
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	old := i.items
	i.items = items
	i.setRVLocked(resourceVersion)
	i.indices = make(map[string]valueIndex, len(i.indexers))
	for key, obj := range items {
		i.reindexLocked(key, nil, obj)
	}
	gone := 0
	for key := range old {
		if _, ok := items[key]; !ok {
			gone++
			if report {
				r.Gone = append(r.Gone, key)
			}
		}
	}
	kept := len(old) - gone
	i.adds.Add(uint64(len(items) - kept))
	i.updates.Add(uint64(kept))
	i.deletes.Add(uint64(gone))
	i.replaces.Add(1)
	i.gen.Add(1)
	if report {
		r.Old = old
	}
	return r, nil
}

// Resync does nothing: a plain store has nothing to resync.
func (i *Indexer) Resync() error { return nil }
