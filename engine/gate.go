package engine

import (
	"errors"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/engine/fifo"
)

// gate holds the process loop before each pop while the informer is
// paused; a step lets exactly one pop through. Closing it releases everyone.
//
// Locking: mu guards every field; cond waits on mu.
type gate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
	steps  int  // pops allowed through while paused
	batch  bool // the granted step may pop a whole batch
	closed bool // the queue closed: never hold anyone again
	held   int  // pops waiting in pass now
	// pausedA mirrors paused for the queue's hold, which is asked with
	// the queue locked and must not wait for mu.
	pausedA atomic.Bool
}

func newGate() *gate {
	g := &gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// pass blocks while paused with no step granted. It reports whether the
// caller is consuming a step, and whether that step may pop a whole batch
// (otherwise it must pop a single item).
func (g *gate) pass() (stepping, batch bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.paused && g.steps == 0 && !g.closed {
		g.held++
		g.cond.Wait()
		g.held--
	}
	if g.paused && g.steps > 0 && !g.closed {
		g.steps--
		return true, g.batch
	}
	return false, false
}

func (g *gate) setPaused(p bool) {
	g.mu.Lock()
	g.paused = p
	g.pausedA.Store(p)
	if !p {
		g.steps = 0
	}
	g.mu.Unlock()
	g.cond.Broadcast()
}

// holding reports whether a pop waits at the gate: the pop loop is parked
// before the queue, so nothing reaches the handlers until a step or resume.
func (g *gate) holding() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held > 0
}

// pausedNow is isPaused without the lock.
func (g *gate) pausedNow() bool { return g.pausedA.Load() }

func (g *gate) isPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

// grantStep lets one more pop through; false (and nothing granted) when the
// gate is not paused or already closed, so a grant can never outlive the
// pause it was made in.
func (g *gate) grantStep(batch bool) bool {
	g.mu.Lock()
	ok := g.paused && !g.closed
	if ok {
		g.steps++
		g.batch = batch
	}
	g.mu.Unlock()
	g.cond.Broadcast()
	return ok
}

// revokeStep takes back a grant no pop has consumed yet, if there is one.
func (g *gate) revokeStep() {
	g.mu.Lock()
	if g.steps > 0 {
		g.steps--
	}
	g.mu.Unlock()
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// gatedQueue is the queue client-go's controller sees: it forwards the
// reflector's store calls to the real queue (recording them), and puts the
// gate in front of every pop.
type gatedQueue struct {
	inner    fifo.Instrumented
	gate     *gate
	stepping atomic.Bool // the pop in progress is a step's
	informer string
	sink     instr.Sink
	resyncs  atomic.Uint64
	// beforeStep is called when a pop consumes a step, before it takes an
	// item; afterStep once that pop has been processed.
	beforeStep, afterStep func()
	// observer, when set, counts the reflector's calls: each Add, Update,
	// Delete and Bookmark is one watch event, each Replace one full list.
	observer *instr.ObservedListerWatcher
	// cutMu is held by every call from the reflector and by Cut, so a cut
	// sees the queue and lastRV together; lastRV is the resourceVersion of
	// the newest object, list or bookmark queued (guarded by cutMu).
	cutMu  sync.Mutex
	lastRV string
}

// gatedBatchQueue adds PopBatch for queues that have it, so client-go's
// controller batches exactly when it would with the unwrapped queue.
type gatedBatchQueue struct {
	*gatedQueue
	batch cache.QueueWithBatch
}

func newGatedQueue(inner fifo.Instrumented, g *gate, informer string, sink instr.Sink) (cache.Queue, *gatedQueue) {
	q := &gatedQueue{inner: inner, gate: g, informer: informer, sink: sink, beforeStep: func() {}, afterStep: func() {}}
	inner.SetHoldAfterWait(q.holdAfterWait)
	if b, ok := inner.(cache.QueueWithBatch); ok {
		return &gatedBatchQueue{gatedQueue: q, batch: b}, q
	}
	return q, q
}

func (q *gatedQueue) Add(obj any) error {
	q.observe(watch.Added, obj)
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	q.lastRV = versionOf(obj)
	return q.inner.Add(obj)
}

func (q *gatedQueue) Update(obj any) error {
	q.observe(watch.Modified, obj)
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	q.lastRV = versionOf(obj)
	return q.inner.Update(obj)
}

func (q *gatedQueue) Delete(obj any) error {
	q.observe(watch.Deleted, obj)
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	q.lastRV = versionOf(obj)
	return q.inner.Delete(obj)
}

func (q *gatedQueue) observe(t watch.EventType, obj any) {
	if q.observer != nil {
		q.observer.StoreCall(t, obj)
	}
}

func (q *gatedQueue) Replace(list []any, rv string) error {
	q.sink.Emit(instr.Event{Type: pipeline.EventReplace, Informer: q.informer, Count: len(list), Detail: rv})
	if q.observer != nil {
		q.observer.Replaced(len(list))
	}
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	q.lastRV = rv
	return q.inner.Replace(list, rv)
}

func (q *gatedQueue) Resync() error {
	q.resyncs.Add(1)
	q.sink.Emit(instr.Event{Type: pipeline.EventResync, Informer: q.informer})
	return q.inner.Resync()
}

// Bookmark forwards to queues that track bookmarks. The reflector looks for
// this method; DeltaFIFO has none, and ignoring the call there is what
// client-go does by not offering it.
func (q *gatedQueue) Bookmark(rv string) error {
	if q.observer != nil {
		q.observer.Bookmarked()
	}
	q.sink.Emit(instr.Event{Type: pipeline.EventBookmark, Informer: q.informer, Detail: rv})
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	q.lastRV = rv
	if b, ok := q.inner.(cache.ReflectorBookmarkStore); ok {
		return b.Bookmark(rv)
	}
	return nil
}

// Transformer lets the reflector apply the queue's transform, as it would
// with the unwrapped queue.
func (q *gatedQueue) Transformer() cache.TransformFunc {
	if t, ok := q.inner.(cache.TransformingStore); ok {
		return t.Transformer()
	}
	return nil
}

// holdAfterWait is the queue's hold (fifo.Instrumented.SetHoldAfterWait):
// a pop that waited inside the empty queue leaves the item that woke it
// queued when a pause came meanwhile, unless it is a step's pop. Pops that
// find items never ask, so the check costs the hot path nothing.
func (q *gatedQueue) holdAfterWait() bool {
	return !q.stepping.Load() && q.gate.pausedNow()
}

// parked reports whether the pop loop is held while paused: at the gate,
// or waiting for an item it would leave queued. Nothing reaches the
// handlers until a step or resume.
func (q *gatedQueue) parked() bool {
	return q.gate.isPaused() && (q.gate.holding() || q.inner.PopWaiting())
}

// Pop is what the pop loop calls when it does not batch (DeltaFIFO, or
// RealFIFO with batched processing off): every step, batch or not, pops
// one item, as the loop would.
func (q *gatedQueue) Pop(process cache.PopProcessFunc) (any, error) {
	for {
		var item any
		var err error
		if stepping, _ := q.gate.pass(); stepping {
			item, err = q.steppedPop(process)
		} else {
			item, err = q.inner.Pop(process)
		}
		if !errors.Is(err, fifo.ErrHeld) { // held: back to the gate
			return item, err
		}
	}
}

// steppedPop pops the single item a step lets through.
func (q *gatedQueue) steppedPop(process cache.PopProcessFunc) (any, error) {
	q.beforeStep()
	defer q.afterStep()
	q.stepping.Store(true)
	defer q.stepping.Store(false)
	return q.inner.Pop(process)
}

func (q *gatedQueue) HasSynced() bool                     { return q.inner.HasSynced() }
func (q *gatedQueue) HasSyncedChecker() cache.DoneChecker { return q.inner.HasSyncedChecker() }

func (q *gatedQueue) Close() {
	q.gate.close()
	q.inner.Close()
}

// PopBatch is what a batching pop loop calls. A single step pops one item;
// a batch step pops what the loop would have: one batch.
func (q *gatedBatchQueue) PopBatch(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) error {
	for {
		err := q.popBatchOnce(batch, single)
		if !errors.Is(err, fifo.ErrHeld) { // held: back to the gate
			return err
		}
	}
}

func (q *gatedBatchQueue) popBatchOnce(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) error {
	stepping, whole := q.gate.pass()
	switch {
	case !stepping:
		return q.batch.PopBatch(batch, single)
	case whole:
		q.beforeStep()
		defer q.afterStep()
		q.stepping.Store(true)
		defer q.stepping.Store(false)
		return q.batch.PopBatch(batch, single)
	}
	_, err := q.steppedPop(single)
	return err
}
