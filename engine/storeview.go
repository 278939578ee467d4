package engine

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/engine/indexer"
)

// StoreView reads an informer's cache; source.InformerStore builds the
// Store view's reader on it without the engine knowing about any source.
type StoreView struct {
	idx *indexer.Indexer
}

// StoreView returns a reader of this informer's cache.
func (inf *Informer) StoreView() StoreView { return StoreView{idx: inf.indexer} }

// Keys returns every cached key, sorted, with the generation read at.
func (v StoreView) Keys() ([]string, uint64) { return v.idx.SortedKeys() }

// Generation changes whenever the cache changes.
func (v StoreView) Generation() uint64 { return v.idx.Generation() }

// Get returns the cached object for key.
func (v StoreView) Get(key string) (any, bool) {
	obj, ok, err := v.idx.GetByKey(key)
	return obj, ok && err == nil
}

// Labels returns the labels of the object at key.
func (v StoreView) Labels(key string) map[string]string {
	obj, ok := v.Get(key)
	if !ok {
		return nil
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return acc.GetLabels()
}

// IndexNames lists the cache's indexes, sorted.
func (v StoreView) IndexNames() []string { return v.idx.IndexNames() }

// IndexValues lists the distinct values of an index.
func (v StoreView) IndexValues(index string) []string {
	vals := v.idx.ListIndexFuncValues(index)
	slices.Sort(vals)
	return vals
}

// IndexKeys lists the keys filed under one value of an index, sorted.
func (v StoreView) IndexKeys(index, value string) []string {
	keys, err := v.idx.IndexKeys(index, value) // already sorted, as client-go's
	if err != nil {
		return nil
	}
	return keys
}

// IndexEntriesOf returns, per index, the values the object at key is filed under.
func (v StoreView) IndexEntriesOf(key string) map[string][]string { return v.idx.IndexEntriesOf(key) }
