package source

import (
	"maps"
	"slices"
	"time"

	"github.com/informtop/informtop/agent/pipeline"
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

// The pipeline's figures as the model carries them: the engine reports the
// same types, so its adapter copies them whole (package pipeline).
type (
	// QueueKind names a queue implementation ("RealFIFO", "DeltaFIFO").
	QueueKind = pipeline.QueueKind
	// Queue is the state of an informer's queue.
	Queue = pipeline.Queue
	// QueueItem is one row of a queue.
	QueueItem = pipeline.QueueItem
	// DeltaCounts counts deltas by type.
	DeltaCounts = pipeline.DeltaCounts
	// Cache is the state of an informer's cache (its indexer).
	Cache = pipeline.Cache
	// Reflector is what was seen of an informer's LIST and WATCH calls.
	Reflector = pipeline.Reflector
	// Memory estimates what an informer's cache holds.
	Memory = pipeline.Memory
)

// The queue kinds.
const (
	RealFIFO  = pipeline.RealFIFO
	DeltaFIFO = pipeline.DeltaFIFO
)

// The fields Memory.ByField splits an object into.
const (
	FieldManagedFields = pipeline.FieldManagedFields
	FieldLastApplied   = pipeline.FieldLastApplied
	FieldAnnotations   = pipeline.FieldAnnotations
	FieldMetadata      = pipeline.FieldMetadata
	FieldSpec          = pipeline.FieldSpec
	FieldStatus        = pipeline.FieldStatus
	FieldData          = pipeline.FieldData
	FieldOther         = pipeline.FieldOther
)

// The transforms whose savings Memory accounts.
const (
	TransformStripManagedFields = pipeline.TransformStripManagedFields
	TransformStripLastApplied   = pipeline.TransformStripLastApplied
)
