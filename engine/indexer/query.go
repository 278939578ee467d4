package indexer

import (
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// Index returns the stored objects filed, in index indexName, under any of
// the values the index function computes for obj (the union over all of
// obj's values), in no particular order. It fails for an unknown index name
// and passes on the index function's own error.
func (i *Indexer) Index(indexName string, obj any) ([]any, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	fn, ok := i.indexers[indexName]
	if !ok {
		return nil, UnknownIndexError{Name: indexName}
	}
	values, err := fn(obj)
	if err != nil {
		return nil, err
	}
	idx := i.indices[indexName]
	if len(values) == 1 {
		// The common case needs no de-duplication.
		return i.objectsLocked(idx[values[0]]), nil
	}
	union := keySet{}
	for _, v := range values {
		for key := range idx[v] {
			union[key] = struct{}{}
		}
	}
	return i.objectsLocked(union), nil
}

// objectsLocked returns the objects stored under keys. Caller holds mu.
func (i *Indexer) objectsLocked(keys keySet) []any {
	out := make([]any, 0, len(keys))
	for key := range keys {
		out = append(out, i.items[key])
	}
	return out
}

// keysLocked returns the key set filed under value in index name, or an
// UnknownIndexError. Caller holds mu.
func (i *Indexer) keysLocked(name, value string) (keySet, error) {
	if _, ok := i.indexers[name]; !ok {
		return nil, UnknownIndexError{Name: name}
	}
	return i.indices[name][value], nil
}

// IndexKeys returns, sorted, the keys of the objects filed under
// indexedValue in index indexName (empty, not nil, when there are none).
func (i *Indexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	set, err := i.keysLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return sortedKeys(set), nil
}

// ByIndex returns the objects filed under indexedValue in index indexName,
// in no particular order.
func (i *Indexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	set, err := i.keysLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return i.objectsLocked(set), nil
}

// ListIndexFuncValues returns the values that at least one object is filed
// under in index indexName, in no particular order; empty for an unknown
// index, as in client-go.
func (i *Indexer) ListIndexFuncValues(indexName string) []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	idx := i.indices[indexName]
	out := make([]string, 0, len(idx))
	for v := range idx {
		out = append(out, v)
	}
	return out
}

// GetIndexers returns a copy of the registered index functions.
func (i *Indexer) GetIndexers() cache.Indexers {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make(cache.Indexers, len(i.indexers))
	for name, fn := range i.indexers {
		out[name] = fn
	}
	return out
}

// AddIndexers registers more index functions and files every stored object
// in the new indexes. If any name is already registered nothing is added and
// the error names the conflicting ones.
func (i *Indexer) AddIndexers(newIndexers cache.Indexers) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	conflict := map[string]struct{}{}
	for name := range newIndexers {
		if _, ok := i.indexers[name]; ok {
			conflict[name] = struct{}{}
		}
	}
	if len(conflict) > 0 {
		// fmt prints map keys sorted, so the message is deterministic.
		return fmt.Errorf("indexer conflict: %v", conflict)
	}
	for name, fn := range newIndexers {
		i.indexers[name] = fn
	}
	for key, obj := range i.items {
		for name, fn := range newIndexers {
			i.reindexOneLocked(name, fn, key, nil, obj)
		}
	}
	i.gen.Add(1)
	return nil
}

func sortedKeys(set keySet) []string {
	out := make([]string, 0, len(set))
	for key := range set {
		out = append(out, key)
	}
	slices.Sort(out)
	return out
}
