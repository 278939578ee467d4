package source

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/agent/redact"
)

// ViewStore reads a cache through v as a StoreReader, objects redacted as
// resource asks ("" unknown: redaction still hides what names itself a
// Secret).
func ViewStore(v CacheView, resource string) StoreReader {
	return viewStore{v: v, resource: resource}
}

// CacheView is what ViewStore reads a cache through: the engine's
// StoreView, or a client-go indexer (IndexerStore).
type CacheView interface {
	Generation() uint64
	Keys() ([]string, uint64) // sorted
	Get(key string) (any, bool)
	IndexEntriesOf(key string) map[string][]string
	IndexNames() []string
	IndexValues(index string) []string
	IndexKeys(index, value string) []string
}

type viewStore struct {
	v        CacheView
	resource string // decides redaction; "" unknown
}

func (s viewStore) Generation() uint64 { return s.v.Generation() }

func (s viewStore) Entries() ([]Entry, uint64) {
	keys, gen := s.v.Keys()
	out := make([]Entry, len(keys))
	for i, k := range keys {
		out[i].Key = k
		obj, ok := s.v.Get(k)
		if !ok {
			continue // deleted since the keys were read
		}
		if a, err := meta.Accessor(obj); err == nil {
			out[i].Labels = a.GetLabels()
			out[i].Created = a.GetCreationTimestamp().Time
		}
	}
	return out, gen
}

func (s viewStore) Object(key string) (Object, bool) {
	obj, ok := s.v.Get(key)
	if !ok {
		return Object{}, false
	}
	o := Object{Key: key, Kind: redact.Kind(obj), YAML: redact.YAML(s.resource, obj), IndexEntries: s.v.IndexEntriesOf(key)}
	if a, err := meta.Accessor(obj); err == nil {
		o.HasMetadata, o.ResourceVersion = true, a.GetResourceVersion()
	}
	return o, true
}

func (s viewStore) IndexNames() []string              { return s.v.IndexNames() }
func (s viewStore) IndexValues(index string) []string { return s.v.IndexValues(index) }
func (s viewStore) IndexKeys(index, value string) []string {
	return s.v.IndexKeys(index, value)
}
