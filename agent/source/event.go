package source

import (
	"fmt"
	"time"
)

// EventType says which stage of the pipeline an Event comes from. It
// reads and writes as its name.
type EventType uint8

const (
	EventListPage      EventType = iota + 1 // a LIST page returned (Count items, Detail continue token)
	EventListDone                           // a full list finished (Count items, Detail resourceVersion)
	EventWatchOpen                          // a WATCH stream opened (Detail resourceVersion)
	EventWatchClose                         // a WATCH stream ended (Count events taken from it)
	EventWatchEvent                         // one watch event (Detail its type)
	EventWatchError                         // a LIST or WATCH call or a stream failed (Detail the error)
	EventRelist                             // a list started after a complete one
	EventReplace                            // the queue received Replace (Count items)
	EventResync                             // the queue received Resync
	EventBookmark                           // a bookmark reached the queue (Detail resourceVersion)
	EventPop                                // an item left the queue (Key, Detail delta types)
	EventStoreUpdate                        // the cache changed (Key, Detail add/update/delete)
	EventDistribute                         // a notification went to the listeners (Key, Detail callback)
	EventHandlerStart                       // a handler call started (Listener, Detail callback)
	EventHandlerFinish                      // a handler call returned (Listener, Duration)
	EventHandlerPanic                       // a handler call panicked (Listener, Detail the value)
	EventSynced                             // the informer or a registration synced
	EventError                              // any other error (Detail)
	EventControl                            // an operator's action: pause, step, a fault (Detail)
	EventCacheMutation                      // a handler changed a cached object (Listener, Key, Detail fields)
	EventStalled                            // a call ran longer than StallAfter (Listener, Key, Detail callback, Duration so far, Frame)
	EventRecovered                          // a stalled call returned (Listener, Key, Detail callback, Duration of the call, Frame)
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

// String is the type's name.
func (t EventType) String() string {
	if t > 0 && t < eventTypeEnd {
		return eventTypeNames[t]
	}
	return "Unknown"
}

// MarshalText writes the type's name.
func (t EventType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a name MarshalText wrote; an unknown name is an error.
func (t *EventType) UnmarshalText(text []byte) error {
	for i, name := range eventTypeNames {
		if name != "" && name == string(text) {
			*t = EventType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event type %q", text)
}

// Event is one thing that happened in an informer's pipeline. Fields that
// do not apply to its type are zero.
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
	// Tombstone: a Distribute of a deletion the informer inferred from a
	// relist (a DeletedFinalStateUnknown).
	Tombstone bool `json:"tombstone,omitempty"`
	// Frame is where a stalled call was found (Stalled, Recovered), as
	// StackStackFrame.String writes it.
	Frame string `json:"frame,omitempty"`
}

// Lifecycle reports whether the event marks a moment in the informer's
// life (lists, watches, relists, resyncs, errors, syncs, controls,
// panics, tombstones) rather than one item's passage through the
// pipeline. They are rare and what a learner looks for later, so event
// logs keep them longer.
func (e Event) Lifecycle() bool {
	switch e.Type {
	case 0, EventWatchEvent, EventBookmark, EventPop, EventStoreUpdate, EventHandlerStart, EventHandlerFinish:
		return false
	case EventDistribute:
		return e.Tombstone
	}
	return true
}

// RingStats are an event log's counters: events, not notifications.
type RingStats struct {
	// Emitted counts the events ever logged.
	Emitted uint64 `json:"emitted"`
	// Dropped counts the events the log no longer holds, each once
	// however many readers there are.
	Dropped uint64 `json:"dropped"`
	// DroppedLifecycle is how many of Dropped were lifecycle events.
	DroppedLifecycle uint64 `json:"droppedLifecycle,omitempty"`
}
