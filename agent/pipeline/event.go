package pipeline

import "fmt"

// EventType says which stage of the pipeline an event comes from. It
// reads and writes as its name.
type EventType uint8

const (
	EventListPage      EventType = iota + 1 // a LIST page returned (Count items, Detail continue token)
	EventListDone                           // a full list finished (Count items, Detail resourceVersion)
	EventWatchOpen                          // a WATCH stream opened (Detail resourceVersion)
	EventWatchClose                         // a WATCH stream ended (Count watch events taken from it)
	EventWatchEvent                         // one watch event (Detail its watch.EventType)
	EventWatchError                         // a LIST or WATCH call or a stream failed (Detail the error)
	EventRelist                             // a list (LIST or streamed) started after a complete one
	EventReplace                            // the queue received Replace (Count items)
	EventResync                             // the queue received Resync
	EventBookmark                           // a bookmark reached the queue (Detail resourceVersion)
	EventPop                                // an item left the queue (Key, Detail delta types)
	EventStoreUpdate                        // the cache changed (Key, Detail add/update/delete)
	EventDistribute                         // a notification went to the listeners (Key, Detail callback)
	EventHandlerStart                       // a handler call started (Listener, Detail callback)
	EventHandlerFinish                      // a handler call returned (Listener, Duration)
	EventHandlerPanic                       // a handler call panicked (Listener, Detail the value)
	EventSynced                             // the informer or a handler registration synced
	EventError                              // any other error (Detail)
	EventControl                            // an operator's action: pause, step, a fault (Detail)
	EventCacheMutation                      // a handler changed a cached object (Listener when known, Key, Detail fields)
	EventStalled                            // a call ran too long (Listener, Key, Detail callback, Duration so far, Frame)
	EventRecovered                          // a stalled call returned (Listener, Key, Detail callback, Duration, Frame)
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

// String is the type's name, as the dashboard shows it and JSON carries it.
func (t EventType) String() string {
	if t > 0 && t < eventTypeEnd {
		return eventTypeNames[t]
	}
	return "Unknown"
}

// MarshalText writes the type's name.
func (t EventType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a name MarshalText wrote, so events survive a trip
// through JSON; an unknown name is an error.
func (t *EventType) UnmarshalText(text []byte) error {
	for i, name := range eventTypeNames {
		if name != "" && name == string(text) {
			*t = EventType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event type %q", text)
}

// ItemEvent reports whether events of type t follow one item through the
// pipeline (watch events, bookmarks, pops, cache updates, handler calls)
// rather than mark a moment of the informer's life. A Distribute is an
// item's unless it hands out a tombstone, which only its emitter knows.
func (t EventType) ItemEvent() bool {
	switch t {
	case 0, EventWatchEvent, EventBookmark, EventPop, EventStoreUpdate, EventHandlerStart, EventHandlerFinish, EventDistribute:
		return true
	}
	return false
}

// RingStats are an event log's counters. They count events, not
// notifications, and describe the log, not a reader: what one reader
// missed is what its read says it missed.
type RingStats struct {
	// Emitted counts the events ever logged.
	Emitted uint64 `json:"emitted"`
	// Dropped counts the events the log no longer holds, each once
	// however many readers there are or were, even if all had read it.
	Dropped uint64 `json:"dropped"`
	// DroppedLifecycle is how many of Dropped were lifecycle events.
	DroppedLifecycle uint64 `json:"droppedLifecycle,omitempty"`
}
