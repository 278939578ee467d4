package source

import (
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

// Event is one thing that happened in an informer's pipeline. Fields that
// do not apply to its type are zero. It is the model's own type, not the
// engine's instr.Event, because the model never holds an object: what a
// dashboard, a report or a recording keeps cannot carry a Secret's data.
// Where instr.Event holds the object a tombstone is known by, this one
// says Tombstone (EventOf builds one from the other).
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
	// StackFrame.String writes it.
	Frame string `json:"frame,omitempty"`
}

// Lifecycle reports whether the event marks a moment in the informer's
// life (lists, watches, relists, resyncs, errors, syncs, controls,
// panics, tombstones) rather than one item's passage through the
// pipeline. They are rare and what a learner looks for later, so event
// logs keep them longer.
func (e Event) Lifecycle() bool {
	if e.Type == EventDistribute {
		return e.Tombstone
	}
	return !e.Type.ItemEvent()
}

// EventType says which stage of the pipeline an Event comes from; it reads
// and writes as its name. The model's event types are the pipeline's.
type EventType = pipeline.EventType

// The event types, named as the model's readers know them.
const (
	EventListPage      = pipeline.EventListPage
	EventListDone      = pipeline.EventListDone
	EventWatchOpen     = pipeline.EventWatchOpen
	EventWatchClose    = pipeline.EventWatchClose
	EventWatchEvent    = pipeline.EventWatchEvent
	EventWatchError    = pipeline.EventWatchError
	EventRelist        = pipeline.EventRelist
	EventReplace       = pipeline.EventReplace
	EventResync        = pipeline.EventResync
	EventBookmark      = pipeline.EventBookmark
	EventPop           = pipeline.EventPop
	EventStoreUpdate   = pipeline.EventStoreUpdate
	EventDistribute    = pipeline.EventDistribute
	EventHandlerStart  = pipeline.EventHandlerStart
	EventHandlerFinish = pipeline.EventHandlerFinish
	EventHandlerPanic  = pipeline.EventHandlerPanic
	EventSynced        = pipeline.EventSynced
	EventError         = pipeline.EventError
	EventControl       = pipeline.EventControl
	EventCacheMutation = pipeline.EventCacheMutation
	EventStalled       = pipeline.EventStalled
	EventRecovered     = pipeline.EventRecovered
)

// RingStats are an event log's counters: events, not notifications.
type RingStats = pipeline.RingStats
