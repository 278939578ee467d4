package processor

import (
	"context"
	"fmt"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

// enqueue appends e to the backlog without waiting for the handler.
// Initial-list adds are counted by the sync tracker before the run
// goroutine can see them, so Finished never precedes Start.
func (l *Listener) enqueue(e entry) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	if a, ok := e.n.(AddNotification); ok && a.IsInInitialList {
		l.tracker.Start()
	}
	l.backlog.WriteOne(e)
	l.pending.queued++
	l.highWater = max(l.highWater, l.backlog.Len())
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

// run calls the handler for each notification in turn until the listener
// stops. It is the only reader of the backlog.
func (l *Listener) run() {
	defer close(l.finished)
	for {
		e, start, ok := l.take()
		if !ok {
			return
		}
		l.deliver(e, start)
	}
}

// take waits for the next notification and marks it as the one in
// progress, in the same critical section, so Pending never counts it and
// Stats never misses it.
func (l *Listener) take() (e entry, start time.Time, ok bool) {
	for {
		l.mu.Lock()
		if l.stopped {
			l.mu.Unlock()
			return entry{}, time.Time{}, false
		}
		if e, ok = l.backlog.ReadOne(); ok {
			start = l.p.clock.Now()
			l.busy, l.current, l.since = true, e, start
			l.mu.Unlock()
			return e, start, true
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-l.stopCh:
		}
	}
}

// deliver makes one handler call and records its outcome.
func (l *Listener) deliver(e entry, start time.Time) {
	sink, key := l.p.perCall, ""
	if sink != nil {
		key = instr.KeyOf(e.object())
		sink.Emit(instr.Event{Time: start, Type: pipeline.EventHandlerStart, Informer: l.p.informer,
			Listener: l.name, Key: key, Detail: e.detail()})
	}
	var pr *probe
	if l.p.attrib != nil {
		pr = l.p.attrib.enter(l.name, e.attributed())
	}
	k := l.invoke(e, key)
	if pr != nil {
		l.checkMutation(e, pr)
	}
	end := l.p.clock.Now()
	took := end.Sub(start)

	l.mu.Lock()
	l.busy, l.current = false, entry{}
	if k != kindNone {
		countDelivered(&l.delivered, k)
		l.latency.record(took)
	}
	l.mu.Unlock()

	if k != kindNone && sink != nil {
		sink.Emit(instr.Event{Time: end, Type: pipeline.EventHandlerFinish, Informer: l.p.informer,
			Listener: l.name, Key: key, Detail: e.detail(), Duration: took})
	}
}

// invoke calls the handler and reports which kind of call returned, or
// kindNone. A panic goes through utilruntime's crash handling exactly as in
// client-go: with ReallyCrash (the default) it is logged and re-raised,
// crashing the process; otherwise it is logged, recorded here and the
// listener moves on to the next notification (client-go would first sleep
// a second). A panicking initial-list OnAdd never counts as finished, so
// the registration does not sync, as in client-go.
func (l *Listener) invoke(e entry, key string) (done kind) {
	defer utilruntime.HandleCrashWithLogger(l.logger, func(_ context.Context, r any) {
		l.recordPanic(e, key, r)
	})
	switch n := e.notification().(type) {
	case AddNotification:
		l.handler.OnAdd(n.Obj, n.IsInInitialList)
		if n.IsInInitialList {
			l.tracker.Finished()
			l.noteSynced()
		}
		return kindAdd
	case UpdateNotification:
		l.handler.OnUpdate(n.Old, n.New)
		if e.isSync() {
			return kindSync
		}
		return kindUpdate
	case DeleteNotification:
		l.handler.OnDelete(n.Obj)
		if _, ok := n.Obj.(cache.DeletedFinalStateUnknown); ok {
			return kindTombstone
		}
		return kindDelete
	}
	detail := fmt.Sprintf("unrecognized notification %T", e.n)
	utilruntime.HandleErrorWithLogger(l.logger, nil, "Unrecognized notification", "notificationType", fmt.Sprintf("%T", e.n))
	l.p.sink.Emit(instr.Event{Time: l.p.clock.Now(), Type: pipeline.EventError, Informer: l.p.informer,
		Listener: l.name, Detail: detail})
	return kindNone
}

// recordPanic counts a handler panic and emits it. It runs inside the
// deferred crash handler, before a re-raise when ReallyCrash is set.
func (l *Listener) recordPanic(e entry, key string, r any) {
	msg := fmt.Sprint(r)
	l.mu.Lock()
	l.panics++
	l.lastPanic = msg
	l.mu.Unlock()
	if l.p.sink == nil {
		return
	}
	if key == "" {
		key = instr.KeyOf(e.object())
	}
	l.p.sink.Emit(instr.Event{Time: l.p.clock.Now(), Type: pipeline.EventHandlerPanic, Informer: l.p.informer,
		Listener: l.name, Key: key, Detail: e.callback() + ": " + msg})
}

// watchSynced tells the tracker when the informer has synced; the tracker
// must already count the initial list, which AddListener guarantees by
// starting this goroutine after queueing it.
func (l *Listener) watchSynced() {
	select {
	case <-l.upstream.Done():
		l.tracker.UpstreamHasSynced()
		l.noteSynced()
	case <-l.stopCh:
	}
}

// noteSynced emits EventSynced the first time the registration is synced.
// The tracker only turns synced inside UpstreamHasSynced or Finished, and
// both callers check afterwards, so the event is never missed.
func (l *Listener) noteSynced() {
	if !l.tracker.HasSynced() || !l.syncNoted.CompareAndSwap(false, true) {
		return
	}
	l.mu.Lock()
	l.syncedAt = l.p.clock.Now()
	l.mu.Unlock()
	l.p.sink.Emit(instr.Event{Time: l.p.clock.Now(), Type: pipeline.EventSynced, Informer: l.p.informer,
		Listener: l.name, Detail: "handler registration synced"})
}
