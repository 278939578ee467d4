package instr

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"
)

// EventType says which stage of the pipeline produced an Event.
type EventType uint8

const (
	EventListPage      EventType = iota + 1 // one LIST page returned (Count items, Detail continue token)
	EventListDone                           // a full LIST finished (Count items, Detail resourceVersion)
	EventWatchOpen                          // a WATCH stream opened (Detail resourceVersion)
	EventWatchClose                         // a WATCH stream ended (Count watch events the reflector took from it)
	EventWatchEvent                         // one watch event (Detail watch.EventType)
	EventWatchError                         // a LIST or WATCH call or a watch stream failed (Detail error text)
	EventRelist                             // a list (LIST or streamed) started after a complete one
	EventReplace                            // the queue received Replace (Count items)
	EventResync                             // the queue received Resync
	EventBookmark                           // a bookmark reached the queue (Detail resourceVersion)
	EventPop                                // an item left the queue (Key, Detail delta types)
	EventStoreUpdate                        // the indexer changed (Key, Detail add/update/delete)
	EventDistribute                         // a notification was handed to the listeners (Key, Detail kind)
	EventHandlerStart                       // a handler callback started (Listener, Detail callback)
	EventHandlerFinish                      // a handler callback returned (Listener, Duration)
	EventHandlerPanic                       // a handler callback panicked (Listener, Detail panic value)
	EventSynced                             // the informer or a handler registration has synced
	EventError                              // any other error (Detail)
	EventControl                            // an operator action: pause, step, fault injection (Detail)
	EventCacheMutation                      // a handler changed a cached object (Listener when known, Key, Detail fields)
	EventStalled                            // a handler call ran too long (Listener, Key, Detail callback, Duration so far, Frame)
	EventRecovered                          // a stalled handler call returned (Listener, Key, Detail callback, Duration, Frame)
	eventTypeEnd
)

var eventTypeNames = [...]string{
	EventListPage:      "ListPage",
	EventListDone:      "ListDone",
	EventWatchOpen:     "WatchOpen",
	EventWatchClose:    "WatchClose",
	EventWatchEvent:    "WatchEvent",
	EventWatchError:    "WatchError",
	EventRelist:        "Relist",
	EventReplace:       "Replace",
	EventResync:        "Resync",
	EventBookmark:      "Bookmark",
	EventPop:           "Pop",
	EventStoreUpdate:   "StoreUpdate",
	EventDistribute:    "Distribute",
	EventHandlerStart:  "HandlerStart",
	EventHandlerFinish: "HandlerFinish",
	EventHandlerPanic:  "HandlerPanic",
	EventSynced:        "Synced",
	EventError:         "Error",
	EventControl:       "Control",
	EventCacheMutation: "CacheMutation",
	EventStalled:       "Stalled",
	EventRecovered:     "Recovered",
}

// String returns the event type's name, as shown in the UI and in JSON.
func (t EventType) String() string {
	if t > 0 && t < eventTypeEnd {
		return eventTypeNames[t]
	}
	return "Unknown"
}

// MarshalText makes event types readable in JSON output.
func (t EventType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a name MarshalText wrote, so events survive a trip
// through JSON (the debug agent's event stream); an unknown name is an error.
func (t *EventType) UnmarshalText(text []byte) error {
	for i, name := range eventTypeNames {
		if name != "" && name == string(text) {
			*t = EventType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event type %q", text)
}

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
	switch e.Type {
	case 0, EventWatchEvent, EventBookmark, EventPop, EventStoreUpdate, EventHandlerStart, EventHandlerFinish:
		return false
	case EventDistribute:
		_, tomb := e.Obj.(cache.DeletedFinalStateUnknown)
		return tomb
	}
	return true
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
