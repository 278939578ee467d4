package source

import (
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

// EventOf is the model of one instrumentation event (the engine's or the agent's). The key is built here, once,
// and the object the event held is let go.
func EventOf(e instr.Event) Event {
	return Event{
		Seq:       e.Seq,
		Time:      e.Time,
		Type:      EventType(e.Type),
		Informer:  e.Informer,
		Listener:  e.Listener,
		Key:       e.ObjectKey(),
		Detail:    e.Detail,
		Count:     e.Count,
		Duration:  e.Duration,
		Frame:     e.Frame,
		Tombstone: e.Type == pipeline.EventDistribute && e.Lifecycle(),
	}
}

// EventsOf is EventOf over a list, in its order.
func EventsOf(evs []instr.Event) []Event {
	if evs == nil {
		return nil
	}
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = EventOf(e)
	}
	return out
}

// RingStatsOf is the model of an event ring's counters.
func RingStatsOf(s instr.RingStats) RingStats { return RingStats(s) }
