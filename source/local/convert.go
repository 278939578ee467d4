package local

import (
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/processor"
)

// This file is the one place engine state becomes source's data model.
// The figures both sides count are one type (package pipeline), copied
// whole; only the model's own types (Informer, Listener) are filled here.

// InformerOf is the model of one engine snapshot.
func InformerOf(s engine.Snapshot) source.Informer {
	out := source.Informer{
		Name:                    s.Name,
		Resource:                s.Resource,
		Implementation:          source.ImplementationEngine,
		QueueKind:               s.QueueKind,
		Taken:                   s.Taken,
		Started:                 s.Started,
		Stopped:                 s.Stopped,
		Paused:                  s.Paused,
		Synced:                  s.Synced,
		LastSyncResourceVersion: s.LastSyncResourceVersion,
		Queue:                   s.Queue,
		Store:                   s.Store,
		Reflector:               s.Reflector,
		Events:                  s.Events,
		Memory:                  s.Memory,
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

func listenerOf(l processor.ListenerStats) source.Listener {
	out := source.Listener{
		Name:               l.Name,
		Pending:            l.Pending,
		Capacity:           l.Capacity,
		HighWater:          l.HighWater,
		Delivered:          l.Delivered,
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
		c := *m
		out.LastCacheMutation = &c
	}
	return out
}

// CutOf is the model of an engine cache cut.
func CutOf(c engine.CacheCut) verify.Cut {
	return verify.Cut{ResourceVersion: c.ResourceVersion, Objects: c.Objects, Held: c.Held}
}
