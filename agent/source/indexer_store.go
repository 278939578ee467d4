package source

import (
	"slices"

	"k8s.io/client-go/tools/cache"
)

// IndexerStore reads a client-go indexer (client-go's own informer's
// cache) as the Store view does an engine informer's: keys sorted,
// objects redacted as resource asks ("" unknown). generation must change
// whenever the cache does; client-go's indexer keeps no such number, so
// the caller counts the changes it sees.
func IndexerStore(idx cache.Indexer, generation func() uint64, resource string) StoreReader {
	return viewStore{v: indexerView{idx: idx, gen: generation}, resource: resource}
}

// indexerView gives a client-go indexer the reads viewStore needs.
type indexerView struct {
	idx cache.Indexer
	gen func() uint64
}

func (v indexerView) Generation() uint64 { return v.gen() }

// Keys reads the generation first: a change during the listing then shows
// as a newer generation on the next look.
func (v indexerView) Keys() ([]string, uint64) {
	gen := v.gen()
	keys := v.idx.ListKeys()
	slices.Sort(keys)
	return keys, gen
}

func (v indexerView) Get(key string) (any, bool) {
	obj, ok, err := v.idx.GetByKey(key)
	return obj, ok && err == nil
}

func (v indexerView) IndexNames() []string {
	names := make([]string, 0, len(v.idx.GetIndexers()))
	for name := range v.idx.GetIndexers() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func (v indexerView) IndexValues(index string) []string {
	vals := v.idx.ListIndexFuncValues(index)
	slices.Sort(vals)
	return vals
}

func (v indexerView) IndexKeys(index, value string) []string {
	keys, err := v.idx.IndexKeys(index, value)
	if err != nil {
		return nil
	}
	slices.Sort(keys)
	return keys
}

// IndexEntriesOf applies each index function to the object at key.
func (v indexerView) IndexEntriesOf(key string) map[string][]string {
	obj, ok := v.Get(key)
	if !ok {
		return nil
	}
	out := make(map[string][]string)
	for name, fn := range v.idx.GetIndexers() {
		if vals, err := fn(obj); err == nil && len(vals) > 0 {
			out[name] = vals
		}
	}
	return out
}
