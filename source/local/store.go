package local

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/redact"
	"github.com/informtop/informtop/source"
)

// InformerStore reads an engine informer's cache; it is what every source
// running informers in-process hands out. Objects are redacted as the
// informer's resource asks.
func InformerStore(inf *engine.Informer) source.StoreReader {
	return InformerStoreOf(inf, inf.Resource())
}

// InformerStoreOf is InformerStore for an informer that does not know its
// resource (a user's, in the agent): resource names it, "" if unknown.
func InformerStoreOf(inf *engine.Informer, resource string) source.StoreReader {
	return viewStore{v: inf.StoreView(), resource: resource}
}

// storeView is what viewStore reads a cache through: the engine's
// StoreView, or a client-go indexer (IndexerStore).
type storeView interface {
	Generation() uint64
	Keys() ([]string, uint64) // sorted
	Get(key string) (any, bool)
	IndexEntriesOf(key string) map[string][]string
	IndexNames() []string
	IndexValues(index string) []string
	IndexKeys(index, value string) []string
}

var _ storeView = engine.StoreView{}

type viewStore struct {
	v        storeView
	resource string // decides redaction; "" unknown
}

func (s viewStore) Generation() uint64 { return s.v.Generation() }

func (s viewStore) Entries() ([]source.Entry, uint64) {
	keys, gen := s.v.Keys()
	out := make([]source.Entry, len(keys))
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

func (s viewStore) Object(key string) (source.Object, bool) {
	obj, ok := s.v.Get(key)
	if !ok {
		return source.Object{}, false
	}
	o := source.Object{Key: key, Kind: redact.Kind(obj), YAML: redact.YAML(s.resource, obj), IndexEntries: s.v.IndexEntriesOf(key)}
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
