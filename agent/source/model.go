package source

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/tools/cache"
)

// ModelVersion names the shape of the data model below as JSON: the agent's
// wire and anything that stores frames carry it. It changes whenever a
// field is renamed, removed or changes meaning; golden files in this
// package's tests pin the JSON of every type, so a change that forgets to
// bump it fails.
const ModelVersion = "3"

// Informer is one informer at one moment: what a source knows of its
// queue, cache, reflector, listeners and memory. Every source fills it:
// the engine's adapter (package source/local) from the engine's own
// counters, others from whatever they read (an agent's wire, a
// recording). A field a source cannot know stays zero.
type Informer struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
	// Namespace is the one namespace it watches; "" for every namespace or
	// a cluster-scoped resource. Group and Version are the resource's
	// ("" group: the core group); both "" when the source does not know.
	Namespace string `json:"namespace,omitempty"`
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	// Implementation is whose informer this is: ImplementationEngine or
	// ImplementationClientGo. Queue contents, steps and memory estimates
	// exist only for informtop's engine.
	Implementation string `json:"implementation,omitempty"`
	// QueueKind is the queue between the reflector and the cache.
	QueueKind QueueKind `json:"queueKind"`
	Taken     time.Time `json:"taken"`
	Started   bool      `json:"started"`
	Stopped   bool      `json:"stopped"`
	// Paused: processing is held (only sources that can pause set it).
	Paused bool `json:"paused"`
	// Synced: the informer has synced, as HasSynced says.
	Synced                  bool       `json:"synced"`
	LastSyncResourceVersion string     `json:"lastSyncResourceVersion"`
	Queue                   Queue      `json:"queue"`
	Store                   Cache      `json:"store"`
	Reflector               Reflector  `json:"reflector"`
	Listeners               []Listener `json:"listeners"`
	Events                  RingStats  `json:"events"`
	Memory                  Memory     `json:"memory"`
}

// The informer implementations a source may serve.
const (
	// ImplementationEngine is informtop's instrumented pipeline.
	ImplementationEngine = "informtop"
	// ImplementationClientGo is client-go's own shared informer, observed
	// from outside (its list-watch, handlers and queue metric).
	ImplementationClientGo = "client-go"
	// ImplementationPprof is client-go's shared informer seen only through
	// its process's goroutine dumps and metrics (attach --pprof): its
	// listeners and what their calls are in, but no keys, backlogs,
	// queues or caches; its durations are lower bounds.
	ImplementationPprof = "client-go (pprof)"
)

// QueueKind names a queue implementation; it reads and writes as text
// ("RealFIFO", "DeltaFIFO"). The zero value is RealFIFO, client-go
// v0.37's default.
type QueueKind int

const (
	// RealFIFO keeps every delta in arrival order.
	RealFIFO QueueKind = iota
	// DeltaFIFO coalesces deltas per key.
	DeltaFIFO
)

// String is the kind's name.
func (k QueueKind) String() string {
	switch k {
	case RealFIFO:
		return "RealFIFO"
	case DeltaFIFO:
		return "DeltaFIFO"
	}
	return fmt.Sprintf("QueueKind(%d)", int(k))
}

// Valid reports whether k names a queue.
func (k QueueKind) Valid() bool { return k == RealFIFO || k == DeltaFIFO }

// MarshalText writes the kind's name.
func (k QueueKind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("no queue kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name in any case; "real" and "delta" are
// short forms.
func (k *QueueKind) UnmarshalText(text []byte) error {
	switch strings.ToLower(string(text)) {
	case "realfifo", "real":
		*k = RealFIFO
	case "deltafifo", "delta":
		*k = DeltaFIFO
	default:
		return fmt.Errorf("unknown queue %q: use RealFIFO or DeltaFIFO", text)
	}
	return nil
}

// Queue is the state of an informer's queue.
type Queue struct {
	Kind QueueKind `json:"kind"`
	// Depth counts rows: keys (DeltaFIFO) or events (RealFIFO).
	Depth int `json:"depth"`
	// Deltas counts the deltas held over all rows.
	Deltas         int         `json:"deltas"`
	OldestEnqueued time.Time   `json:"oldestEnqueued"`
	Added          DeltaCounts `json:"added"`  // deltas ever queued, by type
	Popped         DeltaCounts `json:"popped"` // deltas ever popped, by type
	// Pops counts the items handed to the pop loop's process function.
	Pops      uint64 `json:"pops"`
	Coalesced uint64 `json:"coalesced"`
	Synced    bool   `json:"synced"`
	Closed    bool   `json:"closed"`
	// Head is the first rows, in pop order.
	Head []QueueItem `json:"head,omitempty"`
}

// QueueItem is one row of a queue.
type QueueItem struct {
	Key      string            `json:"key"`
	Types    []cache.DeltaType `json:"types"`
	Enqueued time.Time         `json:"enqueued"`
}

// DeltaCounts counts deltas by type.
type DeltaCounts struct {
	Added    uint64 `json:"added"`
	Updated  uint64 `json:"updated"`
	Deleted  uint64 `json:"deleted"`
	Replaced uint64 `json:"replaced"`
	Sync     uint64 `json:"sync"`
	Bookmark uint64 `json:"bookmark"`
}

// Total is every delta counted.
func (c DeltaCounts) Total() uint64 {
	return c.Added + c.Updated + c.Deleted + c.Replaced + c.Sync + c.Bookmark
}

// Cache is the state of an informer's cache (its indexer).
type Cache struct {
	Objects int `json:"objects"`
	// Indexes maps an index name to its number of distinct values.
	Indexes             map[string]int `json:"indexes"`
	LastResourceVersion string         `json:"lastResourceVersion"`
	Adds                uint64         `json:"adds"`
	Updates             uint64         `json:"updates"`
	Deletes             uint64         `json:"deletes"`
	Replaces            uint64         `json:"replaces"`
	// Generation changes with every change, so readers can skip unchanged
	// key lists.
	Generation uint64 `json:"generation"`
}

// Reflector is what was seen of an informer's LIST and WATCH calls.
type Reflector struct {
	// Lists counts full lists started, retries included: LIST first pages
	// and streamed (WatchList) initial lists.
	Lists uint64 `json:"lists"`
	// ListPages counts every LIST response, paginated or not.
	ListPages      uint64 `json:"listPages"`
	ListedItems    uint64 `json:"listedItems"`
	ListInProgress bool   `json:"listInProgress"`
	// ListStreamed: the newest (or in-progress) initial list came as a
	// WatchList stream, not LIST pages.
	ListStreamed bool `json:"listStreamed"`
	// LastListItems counts the items of the newest complete list, or so
	// far while one is in progress.
	LastListItems int           `json:"lastListItems"`
	LastListTime  time.Duration `json:"lastListTime"`
	// Relists counts lists started after a complete one.
	Relists uint64 `json:"relists"`
	// Watches counts WATCH streams opened.
	Watches        uint64    `json:"watches"`
	WatchOpen      bool      `json:"watchOpen"`
	WatchSince     time.Time `json:"watchSince"`
	WatchEvents    uint64    `json:"watchEvents"`
	WatchAdded     uint64    `json:"watchAdded"`
	WatchModified  uint64    `json:"watchModified"`
	WatchDeleted   uint64    `json:"watchDeleted"`
	WatchBookmarks uint64    `json:"watchBookmarks"`
	// WatchErrors counts ERROR events inside a watch stream (410 Gone).
	WatchErrors uint64 `json:"watchErrors"`
	// Errors counts failed LIST or WATCH calls, watch ERROR events and
	// other failures the reflector reports.
	Errors        uint64    `json:"errors"`
	LastError     string    `json:"lastError"`
	LastErrorTime time.Time `json:"lastErrorTime"`
	Resyncs       uint64    `json:"resyncs"`
	// LastEventTime is when an ADDED, MODIFIED or DELETED watch event was
	// last seen, to within a second.
	LastEventTime    time.Time `json:"lastEventTime"`
	LastBookmarkTime time.Time `json:"lastBookmarkTime"`
	// LastHeard is the newest of the last event, bookmark, list page and
	// watch opened: when the server last answered.
	LastHeard time.Time `json:"lastHeard"`
}

// Memory estimates what an informer's cache holds, in bytes of the
// objects' JSON encoding, from a bounded sample.
type Memory struct {
	Objects int `json:"objects"`
	// Sampled counts the objects sized so far; 0 means no estimate yet.
	Sampled        uint64  `json:"sampled"`
	BytesPerObject float64 `json:"bytesPerObject"`
	EstimatedBytes float64 `json:"estimatedBytes"`
	// ByField splits EstimatedBytes by field (FieldManagedFields, …).
	ByField map[string]float64 `json:"byField"`
	// SavedByTransforms is what each applied transform saves;
	// WouldSaveByTransforms what each one that is off would save.
	SavedByTransforms     map[string]float64 `json:"savedByTransforms"`
	WouldSaveByTransforms map[string]float64 `json:"wouldSaveByTransforms"`
	// GoHeapBytes is the whole process's Go heap in use by objects.
	GoHeapBytes uint64 `json:"goHeapBytes"`
}

// The fields Memory.ByField splits an object into.
const (
	FieldManagedFields = "metadata.managedFields"
	// FieldLastApplied is kubectl's last-applied-configuration annotation.
	FieldLastApplied = "metadata.annotations.lastApplied"
	FieldAnnotations = "metadata.annotations" // the other annotations
	FieldMetadata    = "metadata"             // the rest of metadata
	FieldSpec        = "spec"
	FieldStatus      = "status"
	FieldData        = "data" // data and binaryData
	FieldOther       = "other"
)

// The transforms whose savings Memory accounts.
const (
	TransformStripManagedFields = "stripManagedFields"
	TransformStripLastApplied   = "stripLastApplied"
)

// Clone is a copy of i that shares nothing with it: a source that keeps
// the informers it hands out gives each reader a clone, since readers may
// write into their frame.
func (i Informer) Clone() Informer {
	i.Queue.Head = slices.Clone(i.Queue.Head)
	for j := range i.Queue.Head {
		i.Queue.Head[j].Types = slices.Clone(i.Queue.Head[j].Types)
	}
	i.Store.Indexes = maps.Clone(i.Store.Indexes)
	i.Listeners = slices.Clone(i.Listeners)
	for j := range i.Listeners {
		if m := i.Listeners[j].LastCacheMutation; m != nil {
			c := *m
			c.Fields = slices.Clone(m.Fields)
			i.Listeners[j].LastCacheMutation = &c
		}
		if f := i.Listeners[j].Frame; f != nil {
			c := *f
			i.Listeners[j].Frame = &c
		}
	}
	i.Memory.ByField = maps.Clone(i.Memory.ByField)
	i.Memory.SavedByTransforms = maps.Clone(i.Memory.SavedByTransforms)
	i.Memory.WouldSaveByTransforms = maps.Clone(i.Memory.WouldSaveByTransforms)
	return i
}

// CloneInformers clones every informer of infs.
func CloneInformers(infs []Informer) []Informer {
	if infs == nil {
		return nil
	}
	out := make([]Informer, len(infs))
	for i, inf := range infs {
		out[i] = inf.Clone()
	}
	return out
}
