package instr

import (
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

// Event is one thing that happened somewhere in an informer's pipeline.
// Fields that do not apply to a type are left zero.
type Event struct {
	Seq      uint64        `json:"seq"`
	Time     time.Time     `json:"time"`
	Type     EventType     `json:"type"`
	Informer string        `json:"informer,omitempty"`
	Listener string        `json:"listener,omitempty"`
	Key      string        `json:"key,omitempty"`
	Detail   string        `json:"detail,omitempty"`
	Count    int           `json:"count,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	// Frame is where a stalled handler call was found (Stalled, Recovered).
	Frame string `json:"frame,omitempty"`
	// Obj is the object the event is about, when there is one. Emitters on
	// the hot path set it instead of Key, so the key (a new string) is only
	// built when somebody reads the event: use ObjectKey.
	Obj any `json:"-"`
}

// Lifecycle reports whether the event marks a moment in the informer's
// life (lists, watches, relists, resyncs, errors, syncs, controls, panics,
// tombstones) rather than one item's passage through the pipeline (watch
// events, bookmarks, pops, store updates, distributions, handler calls).
// Lifecycle events are rare and are what a learner looks for later, so a
// Ring keeps them longer.
func (e Event) Lifecycle() bool {
	if e.Type == pipeline.EventDistribute {
		_, tomb := e.Obj.(cache.DeletedFinalStateUnknown)
		return tomb
	}
	return !e.Type.ItemEvent()
}

// ObjectKey returns Key, or the namespace/name key of Obj when Key is empty.
func (e Event) ObjectKey() string {
	if e.Key != "" {
		return e.Key
	}
	return KeyOf(e.Obj)
}

// KeyOf is obj's cache key ("namespace/name", or a tombstone's key), or ""
// when obj is nil or has no metadata.
func KeyOf(obj any) string {
	if obj == nil {
		return ""
	}
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return ""
	}
	return key
}

// Sink receives events through its Emit method. A nil Sink is valid and
// discards everything, so stages can be built without instrumentation. It
// is the concrete ring, not an interface, so that passing an Event costs a
// copy and no allocation.
type Sink = *Ring

// EventType says which stage of the pipeline produced an Event (package
// pipeline has the types).
type EventType = pipeline.EventType
