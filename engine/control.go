package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine/instr"
	"github.com/informtop/informtop/engine/processor"
)

// SetPaused stops or resumes popping from the queue. While paused the
// reflector keeps filling the queue, which is the point: you can watch it grow.
func (inf *Informer) SetPaused(paused bool) {
	inf.gate.setPaused(paused)
	if !paused {
		// Resuming cancels a step that was granted but not taken, so the
		// narration does not go on recording everything that follows.
		inf.dropStep(nil)
	}
	detail := "resume"
	if paused {
		detail = "pause"
	}
	instr.Emit(inf.sink, instr.Event{Type: instr.EventControl, Informer: inf.name, Detail: detail})
}

// Paused reports whether popping is paused.
func (inf *Informer) Paused() bool { return inf.gate.isPaused() }

// ErrNotPaused is returned by Step when the informer is processing freely.
var ErrNotPaused = errors.New("step works only while paused: press space to pause processing first")

// stepRecorder collects the narration of one stepped item. It is written
// under blockDeltas by the process loop and read after the step finished.
type stepRecorder struct {
	result StepResult
}

// Step pops exactly one queue item while paused and reports what happened
// to it: its deltas, the indexer operations, and the notifications handed
// to listeners. It waits at most until ctx is done.
func (inf *Informer) Step(ctx context.Context) (StepResult, error) {
	if !inf.gate.isPaused() {
		return StepResult{}, ErrNotPaused
	}
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return StepResult{}, errors.New("informer " + inf.name + " is not running yet")
	}
	if q.inner.Stats(0).Depth == 0 {
		return StepResult{Informer: inf.name, Empty: true}, nil
	}
	done := make(chan StepResult, 1)
	inf.blockDeltas.Lock()
	inf.step = &stepRecorder{result: StepResult{Informer: inf.name}}
	inf.stepDone = done
	inf.blockDeltas.Unlock()
	inf.gate.grantStep()
	select {
	case res := <-done:
		instr.Emit(inf.sink, instr.Event{Type: instr.EventControl, Informer: inf.name, Key: res.Key, Detail: "step"})
		return res, nil
	case <-ctx.Done():
		inf.dropStep(done)
		return StepResult{}, fmt.Errorf("step on %s did not finish: %w", inf.name, ctx.Err())
	}
}

// dropStep forgets the pending step recorder (only the one reporting to
// done, when done is not nil).
func (inf *Informer) dropStep(done chan StepResult) {
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	if done == nil || inf.stepDone == done {
		inf.step, inf.stepDone = nil, nil
	}
}

// finishStep runs on the process loop after a stepped pop.
func (inf *Informer) finishStep() {
	inf.blockDeltas.Lock()
	rec, done := inf.step, inf.stepDone
	inf.step, inf.stepDone = nil, nil
	inf.blockDeltas.Unlock()
	if rec != nil && done != nil {
		done <- rec.result
	}
}

func (inf *Informer) recordDeltas(deltas cache.Deltas) {
	if inf.step == nil {
		return
	}
	r := &inf.step.result
	for _, d := range deltas {
		r.Deltas = append(r.Deltas, d.Type)
	}
	if r.Key == "" && len(deltas) > 0 {
		r.Key = deltaKey(deltas[len(deltas)-1])
	}
}

func deltaKey(d cache.Delta) string {
	switch info := d.Object.(type) {
	case cache.ReplacedAllInfo:
		return fmt.Sprintf("(relist of %d objects)", len(info.Objects))
	case cache.SyncAllInfo:
		return "(resync of every object)"
	case cache.BookmarkInfo:
		return "(bookmark " + info.ResourceVersion + ")"
	}
	return objectKey(d.Object)
}

// recordStore notes an indexer change for the event log and for a step.
func (inf *Informer) recordStore(op string, obj any) {
	if inf.verbose != nil {
		inf.verbose.Emit(instr.Event{Type: instr.EventStoreUpdate, Informer: inf.name, Detail: op, Obj: obj})
	}
	if inf.step != nil {
		inf.step.result.Store = append(inf.step.result.Store, op+" "+objectKey(obj))
	}
}

func (inf *Informer) recordStoreText(text string) {
	if inf.step != nil {
		inf.step.result.Store = append(inf.step.result.Store, text)
	}
}

func (inf *Informer) recordNotification(n any, sync bool) {
	if inf.step == nil {
		return
	}
	note := StepNotification{}
	switch n := n.(type) {
	case processor.AddNotification:
		note.Callback, note.Key = processor.CallbackAdd, objectKey(n.Obj)
		if n.IsInInitialList {
			note.Detail = "isInInitialList"
		}
	case processor.UpdateNotification:
		note.Callback, note.Key = processor.CallbackUpdate, objectKey(n.New)
		if sync {
			note.Callback += " (sync)"
			note.Detail = "only listeners due for resync"
		}
	case processor.DeleteNotification:
		note.Callback, note.Key = processor.CallbackDelete, objectKey(n.Obj)
		if _, ok := n.Obj.(cache.DeletedFinalStateUnknown); ok {
			note.Detail = "DeletedFinalStateUnknown"
		}
	}
	for _, l := range inf.processor.Listeners() {
		note.Listener = l.Name()
		inf.step.result.Notifications = append(inf.step.result.Notifications, note)
	}
}

// Resync asks the queue for a resync now, as the reflector does when its
// resync timer fires; the sync notifications reach listeners due for one.
func (inf *Informer) Resync() error {
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return errors.New("informer " + inf.name + " is not running yet")
	}
	inf.processor.ShouldResync()
	return q.Resync()
}

// Snapshot returns a consistent, cheap copy of the informer's instrumentation.
func (inf *Informer) Snapshot() Snapshot {
	inf.startedMu.Lock()
	q, started, stopped := inf.queue, inf.started, inf.stopped
	inf.startedMu.Unlock()
	s := Snapshot{
		Name:                    inf.name,
		Resource:                inf.resource,
		QueueKind:               inf.queueKind.String(),
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
	if q != nil {
		s.Queue = q.inner.Stats(inf.queueHead)
		s.Reflector.Resyncs = q.resyncs.Load()
	}
	if inf.observer != nil {
		resyncs := s.Reflector.Resyncs
		s.Reflector = inf.observer.stats()
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
