package source

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/redact"
)

// StoreReader reads one informer's cache for the Store view. The
// dashboard calls it from commands only, never while drawing, so a remote
// implementation may make one request per call.
type StoreReader interface {
	// Generation changes whenever the cache changes; callers re-read
	// Entries only when it did.
	Generation() uint64
	// Entries returns every cached object's key, labels and creation
	// time, sorted by key, and the generation they were read at.
	Entries() (entries []Entry, generation uint64)
	// Object returns one cached object as the Store view shows it: YAML
	// with Secrets redacted and managedFields left out, plus its index
	// entries. ok is false when the key is not cached.
	Object(key string) (obj Object, ok bool)
	// IndexNames lists the indexes, sorted.
	IndexNames() []string
	// IndexValues lists the distinct values of one index, sorted.
	IndexValues(index string) []string
	// IndexKeys lists the keys under one index value, sorted.
	IndexKeys(index, value string) []string
}

// Entry is one row of the Store view's list.
type Entry struct {
	Key     string            `json:"key"`
	Labels  map[string]string `json:"labels,omitempty"`
	Created time.Time         `json:"created,omitzero"`
}

// Object is one cached object, ready to show.
type Object struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// ResourceVersion is "" when the object carries no metadata.
	ResourceVersion string `json:"resourceVersion"`
	HasMetadata     bool   `json:"hasMetadata"`
	// YAML is the object with secret values (as the informer's resource
	// decides) replaced by their size.
	YAML string `json:"yaml"`
	// IndexEntries are, per index, the values the object is filed under.
	IndexEntries map[string][]string `json:"indexEntries,omitempty"`
}

// InformerStore reads an engine informer's cache; it is what every source
// running informers in-process hands out. Objects are redacted as the
// informer's resource asks.
func InformerStore(inf *engine.Informer) StoreReader {
	return InformerStoreOf(inf, inf.Resource())
}

// InformerStoreOf is InformerStore for an informer that does not know its
// resource (a user's, in the agent): resource names it, "" if unknown.
func InformerStoreOf(inf *engine.Informer, resource string) StoreReader {
	return informerStore{v: inf.StoreView(), resource: resource}
}

type informerStore struct {
	v        engine.StoreView
	resource string // decides redaction; "" unknown
}

func (s informerStore) Generation() uint64 { return s.v.Generation() }

func (s informerStore) Entries() ([]Entry, uint64) {
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

func (s informerStore) Object(key string) (Object, bool) {
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

func (s informerStore) IndexNames() []string              { return s.v.IndexNames() }
func (s informerStore) IndexValues(index string) []string { return s.v.IndexValues(index) }
func (s informerStore) IndexKeys(index, value string) []string {
	return s.v.IndexKeys(index, value)
}
