package sourcetest

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
)

// Item is one cached object of a Store.
type Item struct {
	Key string
	// Object is what the cache holds: a typed or unstructured object.
	Object any
	// Labels and Created are the object's own when nil and zero.
	Labels  map[string]string
	Created time.Time
	// Indexes are the values the object is filed under, by index name.
	Indexes map[string][]string
}

// Store is an immutable source.StoreReader: a fixed set of objects at one
// generation. It reads its objects as source.InformerStore reads an
// engine informer's, Secrets redacted.
type Store struct {
	resource string // decides redaction; "" unknown
	gen      uint64
	items    []Item                         // sorted by key
	byKey    map[string]int                 // index into items
	indexes  map[string]map[string][]string // index -> value -> sorted keys
}

var _ source.StoreReader = (*Store)(nil)

// NewStore returns a store of items at generation gen, of an unknown
// resource. A later item replaces an earlier one with the same key.
func NewStore(gen uint64, items ...Item) *Store { return NewResourceStore("", gen, items...) }

// NewResourceStore is NewStore for an informer of resource, which decides
// redaction as it does for an engine informer.
func NewResourceStore(resource string, gen uint64, items ...Item) *Store {
	byKey := map[string]Item{}
	for _, it := range items {
		byKey[it.Key] = it
	}
	s := &Store{resource: resource, gen: gen, byKey: map[string]int{}, indexes: map[string]map[string][]string{}}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		it := byKey[k]
		if a, err := meta.Accessor(it.Object); err == nil {
			if it.Labels == nil {
				it.Labels = a.GetLabels()
			}
			if it.Created.IsZero() {
				it.Created = a.GetCreationTimestamp().Time
			}
		}
		s.byKey[k] = len(s.items)
		s.items = append(s.items, it)
		for name, values := range it.Indexes {
			if s.indexes[name] == nil {
				s.indexes[name] = map[string][]string{}
			}
			for _, v := range slices.Compact(slices.Sorted(slices.Values(values))) {
				s.indexes[name][v] = append(s.indexes[name][v], k) // keys come sorted
			}
		}
	}
	return s
}

// Items returns the store's items, sorted by key.
func (s *Store) Items() []Item { return slices.Clone(s.items) }

// With returns the next generation of the store with items added, or
// replacing the items with their keys.
func (s *Store) With(items ...Item) *Store {
	return NewStore(s.gen+1, append(s.Items(), items...)...)
}

// Without returns the next generation of the store without keys.
func (s *Store) Without(keys ...string) *Store {
	items := slices.DeleteFunc(s.Items(), func(it Item) bool { return slices.Contains(keys, it.Key) })
	return NewStore(s.gen+1, items...)
}

// Generation implements source.StoreReader.
func (s *Store) Generation() uint64 { return s.gen }

// Entries implements source.StoreReader.
func (s *Store) Entries() ([]source.Entry, uint64) {
	out := make([]source.Entry, len(s.items))
	for i, it := range s.items {
		out[i] = source.Entry{Key: it.Key, Labels: maps.Clone(it.Labels), Created: it.Created}
	}
	return out, s.gen
}

// Object implements source.StoreReader. IndexEntries names every index,
// with no values for one the object is not filed under, as an engine
// informer's store does.
func (s *Store) Object(key string) (source.Object, bool) {
	i, ok := s.byKey[key]
	if !ok {
		return source.Object{}, false
	}
	it := s.items[i]
	o := source.Object{Key: key, Kind: redact.Kind(it.Object), YAML: redact.YAML(s.resource, it.Object),
		IndexEntries: make(map[string][]string, len(s.indexes))}
	for name := range s.indexes {
		o.IndexEntries[name] = slices.Compact(slices.Sorted(slices.Values(it.Indexes[name])))
		if o.IndexEntries[name] == nil {
			o.IndexEntries[name] = []string{}
		}
	}
	if a, err := meta.Accessor(it.Object); err == nil {
		o.HasMetadata, o.ResourceVersion = true, a.GetResourceVersion()
	}
	return o, true
}

// IndexNames implements source.StoreReader.
func (s *Store) IndexNames() []string { return slices.Sorted(maps.Keys(s.indexes)) }

// IndexValues implements source.StoreReader.
func (s *Store) IndexValues(index string) []string {
	return slices.Sorted(maps.Keys(s.indexes[index]))
}

// IndexKeys implements source.StoreReader.
func (s *Store) IndexKeys(index, value string) []string {
	return slices.Clone(s.indexes[index][value])
}
