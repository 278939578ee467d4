package local

import (
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/fifo"
	"github.com/informtop/informtop/engine/processor"
)

// This file is the one place engine state becomes source's data model.
// Where a model type has exactly the engine type's fields, a Go conversion
// copies it, so a field added on one side and not the other stops the
// build here instead of vanishing from the dashboard and the wire.

// InformerOf is the model of one engine snapshot.
func InformerOf(s engine.Snapshot) source.Informer {
	out := source.Informer{
		Name:                    s.Name,
		Resource:                s.Resource,
		Implementation:          source.ImplementationEngine,
		QueueKind:               QueueKindOf(s.QueueKind),
		Taken:                   s.Taken,
		Started:                 s.Started,
		Stopped:                 s.Stopped,
		Paused:                  s.Paused,
		Synced:                  s.Synced,
		LastSyncResourceVersion: s.LastSyncResourceVersion,
		Queue:                   queueOf(s.Queue),
		Store:                   source.Cache(s.Store),
		Reflector:               source.Reflector(s.Reflector),
		Events:                  source.RingStats(s.Events),
		Memory:                  source.Memory(s.Memory),
	}
	if s.Listeners != nil {
		out.Listeners = make([]source.Listener, len(s.Listeners))
		for i, l := range s.Listeners {
			out.Listeners[i] = listenerOf(l)
		}
	}
	return out
}

// InformersOf is InformerOf over a list, in its order.
func InformersOf(snaps []engine.Snapshot) []source.Informer {
	out := make([]source.Informer, len(snaps))
	for i, s := range snaps {
		out[i] = InformerOf(s)
	}
	return out
}

// QueueKindOf names the engine's queue kind in the model.
func QueueKindOf(k engine.QueueKind) source.QueueKind {
	if k == engine.DeltaFIFO {
		return source.DeltaFIFO
	}
	return source.RealFIFO
}

// EngineQueueKind is QueueKindOf's inverse, for sources that build
// informers from a model kind (a recording's header).
func EngineQueueKind(k source.QueueKind) engine.QueueKind {
	if k == source.DeltaFIFO {
		return engine.DeltaFIFO
	}
	return engine.RealFIFO
}

func queueOf(q fifo.Stats) source.Queue {
	return source.Queue{
		Kind:           QueueKindOf(q.Kind),
		Depth:          q.Depth,
		Deltas:         q.Deltas,
		OldestEnqueued: q.OldestEnqueued,
		Added:          source.DeltaCounts(q.Added),
		Popped:         source.DeltaCounts(q.Popped),
		Pops:           q.Pops,
		Coalesced:      q.Coalesced,
		Synced:         q.Synced,
		Closed:         q.Closed,
		Head:           QueueItemsOf(q.Head),
	}
}

// QueueItemsOf is the model of queue rows.
func QueueItemsOf(items []fifo.Item) []source.QueueItem {
	if items == nil {
		return nil
	}
	out := make([]source.QueueItem, len(items))
	for i, it := range items {
		out[i] = source.QueueItem(it)
	}
	return out
}

func listenerOf(l processor.ListenerStats) source.Listener {
	out := source.Listener{
		Name:               l.Name,
		Pending:            l.Pending,
		Capacity:           l.Capacity,
		HighWater:          l.HighWater,
		Delivered:          source.Delivered(l.Delivered),
		LatencyP50:         l.LatencyP50,
		LatencyP99:         l.LatencyP99,
		InCallback:         l.InCallback,
		InCallbackKey:      l.InCallbackKey,
		InCallbackSince:    l.InCallbackSince,
		Synced:             l.Synced,
		SyncedAt:           l.SyncedAt,
		Panics:             l.Panics,
		LastPanic:          l.LastPanic,
		CacheMutations:     l.CacheMutations,
		RequestedResync:    l.RequestedResync,
		ResyncPeriod:       l.ResyncPeriod,
		OldestPendingSince: l.OldestPendingSince,
	}
	if m := l.LastCacheMutation; m != nil {
		c := source.CacheMutation(*m)
		out.LastCacheMutation = &c
	}
	return out
}

// PendingOf is the model of a listener's backlog.
func PendingOf(ps []processor.Pending) []source.Pending {
	if ps == nil {
		return nil
	}
	out := make([]source.Pending, len(ps))
	for i, p := range ps {
		out[i] = source.Pending(p)
	}
	return out
}

// StepOf is the model of what a step popped.
func StepOf(r engine.StepResult) source.StepResult {
	out := source.StepResult{
		Informer:         r.Informer,
		Kind:             source.StepKind(r.Kind),
		QueueKind:        QueueKindOf(r.QueueKind),
		Batching:         r.Batching,
		Key:              r.Key,
		Keys:             r.Keys,
		Deltas:           r.Deltas,
		Store:            r.Store,
		Empty:            r.Empty,
		Batch:            r.Batch,
		ResourceVersions: r.ResourceVersions,
		Journey:          r.Journey,
	}
	if r.Notifications != nil {
		out.Notifications = make([]source.StepNotification, len(r.Notifications))
		for i, n := range r.Notifications {
			out.Notifications[i] = source.StepNotification(n)
		}
	}
	if r.Summary != nil {
		out.Summary = make([]source.NotificationCount, len(r.Summary))
		for i, c := range r.Summary {
			out.Summary[i] = source.NotificationCount(c)
		}
	}
	return out
}

// CutOf is the model of an engine cache cut.
func CutOf(c engine.CacheCut) verify.Cut {
	return verify.Cut{ResourceVersion: c.ResourceVersion, Objects: c.Objects, Held: c.Held}
}
