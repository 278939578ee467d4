package processor

import (
	"time"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

// countDelivered adds one returned call of kind k.
func countDelivered(d *pipeline.Delivered, k kind) {
	switch k {
	case kindAdd:
		d.Add++
	case kindUpdate:
		d.Update++
	case kindDelete:
		d.Delete++
	case kindSync:
		d.Sync++
	case kindTombstone:
		d.Delete++
		d.Tombstones++
	}
}

// Stats returns a copy of the listener's instrumentation. It holds the
// listener's lock only to copy fields; the key of the object in progress
// and the latency percentiles are computed after releasing it.
func (l *Listener) Stats() ListenerStats {
	l.mu.Lock()
	s := ListenerStats{
		Name:               l.name,
		Pending:            l.backlog.Len(),
		Capacity:           l.backlog.Cap(),
		HighWater:          l.highWater,
		Delivered:          l.delivered,
		Panics:             l.panics,
		LastPanic:          l.lastPanic,
		CacheMutations:     l.mutations.count,
		LastCacheMutation:  l.mutations.last,
		SyncedAt:           l.syncedAt,
		OldestPendingSince: l.oldestPendingSinceLocked(),
	}
	calls := instr.CallReading{Window: l.latency.recorded()}
	if l.busy {
		calls.Callback, calls.Since, calls.Object = l.current.callback(), l.since, l.current.object()
	}
	l.mu.Unlock()

	calls.Fill(&s)
	s.Synced = l.tracker.HasSynced()
	s.RequestedResync = l.requestedResync
	s.ResyncPeriod = time.Duration(l.resyncPeriod.Load())
	return s
}
