package indexer

import (
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// keySet is a set of store keys.
type keySet map[string]struct{}

// valueIndex maps one index's values to the keys filed under each of them.
// A value is present only while its set is non-empty.
type valueIndex map[string]keySet

// UnknownIndexError is returned by the index queries for a name that no index
// function was registered under.
type UnknownIndexError struct {
	Name string
}

func (e UnknownIndexError) Error() string {
	return fmt.Sprintf("index with name %s does not exist", e.Name)
}

// valuesFor runs the index function on obj. A nil object is filed nowhere,
// which is how client-go treats "no old object" and "no new object".
// An index function that fails while the store is being written leaves the
// store unable to stay consistent, so, like client-go, it panics.
func valuesFor(fn cache.IndexFunc, name, key string, obj any) []string {
	if obj == nil {
		return nil
	}
	values, err := fn(obj)
	if err != nil {
		panic(fmt.Errorf("index %q cannot compute the values of %q: %w", name, key, err))
	}
	return values
}

// reindexLocked moves key from the values oldObj was filed under to those of
// newObj, in every index. Either object may be nil (add / delete).
// Caller holds the write lock.
func (i *Indexer) reindexLocked(key string, oldObj, newObj any) {
	for name, fn := range i.indexers {
		i.reindexOneLocked(name, fn, key, oldObj, newObj)
	}
}

// reindexOneLocked is reindexLocked for a single index.
// Caller holds the write lock.
func (i *Indexer) reindexOneLocked(name string, fn cache.IndexFunc, key string, oldObj, newObj any) {
	before := valuesFor(fn, name, key, oldObj)
	after := valuesFor(fn, name, key, newObj)
	// Most updates keep their values (e.g. the namespace): nothing to move.
	if slices.Equal(before, after) {
		return
	}
	idx := i.indices[name]
	for _, v := range before {
		set := idx[v]
		if set == nil {
			continue
		}
		delete(set, key)
		if len(set) == 0 {
			delete(idx, v)
		}
	}
	if len(after) == 0 {
		return
	}
	if idx == nil {
		idx = valueIndex{}
		i.indices[name] = idx
	}
	for _, v := range after {
		set := idx[v]
		if set == nil {
			set = keySet{}
			idx[v] = set
		}
		set[key] = struct{}{}
	}
}
