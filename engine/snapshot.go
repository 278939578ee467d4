package engine

import (
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/engine/fifo"
)

// Event is one instrumentation event; see package instr for the types.
type Event = instr.Event

// ReflectorStats is what the instrumented ListerWatcher saw of the reflector.
type ReflectorStats = instr.ReflectorStats

// Snapshot returns a consistent, cheap copy of the informer's instrumentation.
func (inf *Informer) Snapshot() Snapshot {
	inf.startedMu.Lock()
	q, started, stopped := inf.queue, inf.started, inf.stopped
	inf.startedMu.Unlock()
	s := Snapshot{
		Name:                    inf.name,
		Resource:                inf.resource,
		QueueKind:               inf.queueKind,
		Taken:                   time.Now(),
		Started:                 started,
		Stopped:                 stopped,
		Paused:                  inf.gate.isPaused(),
		Synced:                  inf.HasSynced(),
		LastSyncResourceVersion: inf.LastSyncResourceVersion(),
		Store:                   inf.indexer.Stats(),
		Listeners:               inf.processor.Stats(),
		Events:                  inf.events.Stats(),
	}
	if s.Store.Objects > 0 && inf.memory.neverSampled() {
		// The first estimate should not wait for the upkeep, so that a report
		// taken right after sync (--once) has one: one bounded round, once
		// the store has objects (an upkeep round before the list landed
		// found none); later rounds are the upkeep's.
		inf.memory.mu.Lock()
		inf.memory.lastRound = s.Taken
		inf.memory.mu.Unlock()
		inf.memoryRound()
	}
	s.Memory = inf.memory.stats(s.Store.Objects)
	if q != nil {
		s.Queue = q.inner.Stats(inf.queueHead)
		s.Reflector.Resyncs = q.resyncs.Load()
	}
	if inf.observer != nil {
		resyncs := s.Reflector.Resyncs
		s.Reflector = inf.observer.Stats(s.Taken)
		s.Reflector.Resyncs = resyncs
	}
	return s
}

// QueueDeltas returns the deltas queued for key, for drilling into the queue.
func (inf *Informer) QueueDeltas(key string) cache.Deltas {
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return nil
	}
	return q.inner.Deltas(key)
}

// Drained reports that the queue is empty and everything popped from it
// has been processed: the indexer holds it and the listeners have been
// handed its notifications (they may still be working through them). An
// empty queue alone is not enough: a pop takes its items out of the queue
// before processing them.
func (inf *Informer) Drained() bool {
	// processed first: it never exceeds popped, so if it equals the popped
	// count read afterwards, nothing popped was still being processed.
	processed := inf.processed.Load()
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return false
	}
	s := q.inner.Stats(0)
	return s.Depth == 0 && s.Pops == processed
}

// QueueRows returns at most max rows of the queue from offset on, in pop
// order, and the number of rows queued in all: a bounded copy for paging
// through the whole queue.
func (inf *Informer) QueueRows(offset, max int) (rows []fifo.Item, total int) {
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return nil, 0
	}
	return q.inner.Rows(offset, max)
}

// ListenerBacklog returns at most max of the notifications waiting for the
// named listener, oldest first; nil when there is no such listener.
func (inf *Informer) ListenerBacklog(listener string, max int) []pipeline.Pending {
	for _, l := range inf.processor.Listeners() {
		if l.Name() == listener {
			return l.Backlog(max)
		}
	}
	return nil
}

// Snapshot is a consistent, cheap copy of one informer's instrumentation:
// counters and bounded views only, so the UI can take one every tick. It
// is the model's informer (pipeline.Informer); the engine leaves what it
// does not know (namespace, group, version, implementation) to its
// adapter.
type Snapshot = pipeline.Informer
