package source

import (
	"time"
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
