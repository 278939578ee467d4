package engine

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/engine/processor"
)

// ErrNotPaused is returned by Step when the informer is processing freely.
var ErrNotPaused = errors.New("step works only while processing is paused (SetPaused)")

// stepRecorder collects the narration of one stepped item. Step creates it
// as the informer's pendingStep; the pop that consumes the step arms it as
// step, so only that pop is recorded, not one that was already under way
// when Step was called. Its fields are written under blockDeltas.
type stepRecorder struct {
	result  pipeline.StepResult
	items   int                      // queue items handed to processing
	counts  map[[2]string]int        // Summary index by listener and callback
	done    chan pipeline.StepResult // buffered: the process loop never waits for Step
	dropped chan struct{}            // closed when the step is withdrawn before its pop
}

// Step pops exactly one queue item while paused and reports what happened
// to it: its deltas, the indexer operations, and the notifications handed
// to listeners. Concurrent calls take turns, one item each. It waits at
// most until ctx is done.
func (inf *Informer) Step(ctx context.Context) (pipeline.StepResult, error) {
	return inf.stepOnce(ctx, pipeline.StepSingle)
}

// StepBatch pops while paused what the pop loop would pop at once, as
// client-go v0.37's batched RealFIFO pop does: up to 1,000 distinct keys,
// ending before a repeated key and at a bookmark, relist or resync item
// (which goes alone). A DeltaFIFO, or a RealFIFO with batched processing
// off, pops one item, like Step; the result says which happened.
func (inf *Informer) StepBatch(ctx context.Context) (pipeline.StepResult, error) {
	return inf.stepOnce(ctx, pipeline.StepBatch)
}

func (inf *Informer) stepOnce(ctx context.Context, kind pipeline.StepKind) (pipeline.StepResult, error) {
	inf.startedMu.Lock()
	q, stopped, batching := inf.queue, inf.stopped, inf.batching
	inf.startedMu.Unlock()
	switch {
	case q == nil:
		return pipeline.StepResult{}, errors.New("informer " + inf.name + " is not running yet: start it before stepping")
	case stopped:
		return pipeline.StepResult{}, errors.New("informer " + inf.name + " has stopped: there is nothing left to step")
	case !inf.gate.isPaused():
		return pipeline.StepResult{}, ErrNotPaused
	}
	// One step at a time, so that at most one grant is outstanding and each
	// step's narration is of its own item.
	select {
	case inf.stepTurn <- struct{}{}:
		defer func() { <-inf.stepTurn }()
	case <-ctx.Done():
		return pipeline.StepResult{}, fmt.Errorf("step on %s did not start: %w", inf.name, ctx.Err())
	}
	base := pipeline.StepResult{Informer: inf.name, Kind: kind, QueueKind: inf.queueKind, Batching: batching}
	if q.inner.Stats(0).Depth == 0 {
		base.Empty = true
		return base, nil
	}
	rec := &stepRecorder{result: base, done: make(chan pipeline.StepResult, 1), dropped: make(chan struct{})}
	inf.blockDeltas.Lock()
	inf.pendingStep = rec
	inf.blockDeltas.Unlock()
	if !inf.gate.grantStep(kind == pipeline.StepBatch) {
		inf.dropStep(rec)
		return pipeline.StepResult{}, ErrNotPaused
	}
	select {
	case res := <-rec.done:
		detail := "step"
		if kind == pipeline.StepBatch {
			detail = fmt.Sprintf("batch step (%d popped)", res.Batch)
		}
		inf.sink.Emit(instr.Event{Type: pipeline.EventControl, Informer: inf.name, Key: res.Key, Detail: detail})
		return res, nil
	case <-rec.dropped:
		return pipeline.StepResult{}, fmt.Errorf("step on %s was withdrawn: processing was resumed before an item was popped", inf.name)
	case <-ctx.Done():
		inf.dropStep(rec)
		return pipeline.StepResult{}, fmt.Errorf("step on %s did not finish: %w", inf.name, ctx.Err())
	}
}

// dropStep withdraws rec (any pending step when rec is nil) and its grant
// if no pop has taken them yet, and stops recording for rec if one has.
func (inf *Informer) dropStep(rec *stepRecorder) {
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	if p := inf.pendingStep; p != nil && (rec == nil || p == rec) {
		close(p.dropped)
		inf.pendingStep = nil
		inf.gate.revokeStep()
	}
	if rec != nil && inf.step == rec {
		inf.step = nil
	}
}

// beginStep runs on the process loop when a pop consumes a step: the
// pending recorder starts recording.
func (inf *Informer) beginStep() {
	inf.blockDeltas.Lock()
	inf.step, inf.pendingStep = inf.pendingStep, nil
	inf.blockDeltas.Unlock()
}

// finishStep runs on the process loop after a stepped pop and hands the
// narration to Step. A pop that ended without an item (the queue closed)
// reports an empty queue.
func (inf *Informer) finishStep() {
	inf.blockDeltas.Lock()
	rec := inf.step
	inf.step = nil
	inf.blockDeltas.Unlock()
	if rec == nil {
		return
	}
	rec.result.Empty = len(rec.result.Deltas) == 0
	rec.result.Batch = rec.items
	rec.done <- rec.result
}

// recordDeltas notes the deltas of items handed to processing: items is 1
// for a popped row (a DeltaFIFO key with all its deltas, or one RealFIFO
// event), len(deltas) for a batch.
func (inf *Informer) recordDeltas(deltas []cache.Delta, items int) {
	if inf.step == nil {
		return
	}
	inf.step.items += items
	r := &inf.step.result
	for _, d := range deltas {
		r.Deltas = append(r.Deltas, d.Type)
		r.ResourceVersions = append(r.ResourceVersions, deltaRV(d))
		if key := deltaKey(d); len(r.Keys) == 0 || r.Keys[len(r.Keys)-1] != key {
			r.Keys = append(r.Keys, key)
		}
	}
	if len(r.Keys) > 0 {
		r.Key = r.Keys[0]
	}
}

// deltaRV is the resourceVersion a delta carries, "" for one without an
// object of its own (a relist, a resync).
func deltaRV(d cache.Delta) string {
	obj := d.Object
	switch info := obj.(type) {
	case cache.BookmarkInfo:
		return info.ResourceVersion
	case cache.DeletedFinalStateUnknown:
		obj = info.Obj
	case cache.ReplacedAllInfo, cache.SyncAllInfo:
		return ""
	}
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetResourceVersion()
	}
	return ""
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
	return instr.KeyOf(d.Object)
}

// recordStore notes an indexer change for the event log and for a step.
func (inf *Informer) recordStore(op string, obj any) {
	if inf.verbose != nil {
		inf.verbose.Emit(instr.Event{Type: pipeline.EventStoreUpdate, Informer: inf.name, Detail: op, Obj: obj})
	}
	if inf.step != nil {
		inf.step.result.Store = append(inf.step.result.Store, op+" "+instr.KeyOf(obj))
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
	note := pipeline.StepNotification{}
	switch n := n.(type) {
	case processor.AddNotification:
		note.Callback, note.Key = pipeline.CallbackAdd, instr.KeyOf(n.Obj)
		if n.IsInInitialList {
			note.Detail = "isInInitialList"
		}
	case processor.UpdateNotification:
		note.Callback, note.Key = pipeline.CallbackUpdate, instr.KeyOf(n.New)
		if sync {
			note.Callback += " (sync)"
			note.Detail = "only listeners due for resync"
		}
	case processor.DeleteNotification:
		note.Callback, note.Key = pipeline.CallbackDelete, instr.KeyOf(n.Obj)
		if _, ok := n.Obj.(cache.DeletedFinalStateUnknown); ok {
			note.Detail = "DeletedFinalStateUnknown"
		}
	}
	rec := inf.step
	for _, l := range inf.processor.Recipients(sync) {
		note.Listener = l.Name()
		rec.result.Notifications = append(rec.result.Notifications, note)
		id := [2]string{note.Listener, note.Callback}
		if rec.counts == nil {
			rec.counts = map[[2]string]int{}
		}
		i, ok := rec.counts[id]
		if !ok {
			i = len(rec.result.Summary)
			rec.counts[id] = i
			rec.result.Summary = append(rec.result.Summary, pipeline.NotificationCount{Listener: note.Listener, Callback: note.Callback})
		}
		rec.result.Summary[i].Count++
	}
}
