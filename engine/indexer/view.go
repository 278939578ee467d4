package indexer

import "slices"

// Stats returns the store's counters and sizes. Sizes, the resourceVersion
// and the generation are read together under the read lock, so they describe
// one state. LastResourceVersion is the tracked version even when the
// AtomicFIFO gate makes LastStoreSyncResourceVersion report "".
func (i *Indexer) Stats() Stats {
	i.mu.RLock()
	defer i.mu.RUnlock()
	indexes := make(map[string]int, len(i.indexers))
	for name := range i.indexers {
		indexes[name] = len(i.indices[name])
	}
	return Stats{
		Objects:             len(i.items),
		Indexes:             indexes,
		LastResourceVersion: i.rv,
		Adds:                i.adds.Load(),
		Updates:             i.updates.Load(),
		Deletes:             i.deletes.Load(),
		Replaces:            i.replaces.Load(),
		Generation:          i.gen.Load(),
	}
}

// SortedKeys returns every key, sorted, with the generation of the state they
// were read from: a caller holding keys of generation g may skip the copy
// while Generation() still returns g.
func (i *Indexer) SortedKeys() ([]string, uint64) {
	i.mu.RLock()
	keys := make([]string, 0, len(i.items))
	for key := range i.items {
		keys = append(keys, key)
	}
	gen := i.gen.Load()
	i.mu.RUnlock()
	slices.Sort(keys) // outside the lock: writers need not wait for it
	return keys, gen
}

// IndexEntriesOf returns, for every index, the sorted values the object at key
// is filed under (an empty slice when none). It returns nil when key is not
// stored. The values come from the index functions and are checked against
// the indexes, so an object is never reported under a value it is not filed
// under.
func (i *Indexer) IndexEntriesOf(key string) map[string][]string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	obj, ok := i.items[key]
	if !ok {
		return nil
	}
	out := make(map[string][]string, len(i.indexers))
	for name, fn := range i.indexers {
		values := []string{}
		if obj != nil {
			computed, err := fn(obj)
			if err == nil {
				idx := i.indices[name]
				for _, v := range computed {
					if _, filed := idx[v][key]; filed {
						values = append(values, v)
					}
				}
			}
		}
		slices.Sort(values)
		out[name] = slices.Compact(values)
	}
	return out
}

// IndexNames returns the names of the registered indexes, sorted.
func (i *Indexer) IndexNames() []string {
	i.mu.RLock()
	names := make([]string, 0, len(i.indexers))
	for name := range i.indexers {
		names = append(names, name)
	}
	i.mu.RUnlock()
	slices.Sort(names)
	return names
}
