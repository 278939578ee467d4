package pipeline

import (
	"maps"
	"slices"
	"time"
)

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
	// Implementation is whose informer this is: one of source's
	// Implementation names. Queue contents, steps and memory estimates
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
