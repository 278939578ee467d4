package fifo

import (
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// realBatchSize is the largest number of items PopBatch hands over at once,
// as in client-go.
const realBatchSize = 1000

// RealFIFO is client-go v0.37's RealFIFO re-implemented with
// instrumentation: every call from the reflector becomes its own queue item,
// delivered in arrival order, with no coalescing per key.
//
// With AtomicEvents a Replace is one ReplacedAll item and a Resync one
// SyncAll item, so the queue never has to look at the consumer's store;
// without it, Replace and Resync expand into per-object deltas computed
// against the queue and KnownObjects.
//
// Locking: lock guards every field below it. Pop and PopBatch hold it while
// the process function runs, unless UnlockWhileProcessing is set and the
// queue is shorter than two batches; the process function must therefore
// not call back into the queue when UnlockWhileProcessing is off. Pop and
// PopBatch expect a single consumer goroutine.
type RealFIFO struct {
	// Configuration, fixed by NewRealFIFO.
	name                  string
	logger                klog.Logger
	keyFunc               cache.KeyFunc
	knownObjects          cache.KeyListerGetter // nil when atomic
	transformer           cache.TransformFunc
	atomicEvents          bool
	unlockWhileProcessing bool
	emitBookmarks         bool
	batchSize             int
	identifier            cache.InformerNameAndResource
	metrics               queueMetrics
	now                   func() time.Time // stamps rows; tests replace it

	lock sync.Mutex
	cond sync.Cond // signalled on every append and on Close; L is &lock

	items realDeque

	// populated turns true at the first Add/Update/Delete/Replace. Until
	// the consumer has processed initialPopulationCount items after that,
	// the queue is not synced; synced is closed (once) when it is.
	populated              bool
	initialPopulationCount int
	synced                 chan struct{}
	syncedClosed           bool

	closed bool
	pause  holdAfterWait
	// processing is true while a popped batch is processed with lock
	// released; Cut waits for it to turn false.
	processing bool

	batchKeys map[string]struct{} // scratch set for batchLenLocked, reused

	// Instrumentation, guarded by lock like the rest.
	added  TypeCounts
	popped TypeCounts
	pops   uint64
}

// realItem is one queued event plus what the instrumentation shows of it.
type realItem struct {
	delta cache.Delta
	key   string // key computed when queued; "" for ReplacedAll, SyncAll and Bookmark
	at    int64  // enqueue time in Unix nanoseconds, kept small on purpose
}

var (
	_ cache.Queue                  = (*RealFIFO)(nil)
	_ cache.QueueWithBatch         = (*RealFIFO)(nil)
	_ cache.TransformingStore      = (*RealFIFO)(nil)
	_ cache.ReflectorBookmarkStore = (*RealFIFO)(nil)
	_ cache.DoneChecker            = (*RealFIFO)(nil)
	_ Instrumented                 = (*RealFIFO)(nil)
)

// NewRealFIFO returns an empty RealFIFO configured like client-go's
// NewRealFIFOWithOptions. It panics on the option combinations client-go
// rejects: KnownObjects with AtomicEvents, and, without AtomicEvents, a
// missing KnownObjects, UnlockWhileProcessing or EmitDeltaTypeBookmark.
//
// With an Identifier that is reserved now and a MetricsProvider, the queue
// feeds the provider's queued-items gauge (items queued, set whenever that
// changes, bookmarks included) and processing-latency histogram (one
// observation per Pop, or per PopBatch whatever the batch's size).
func NewRealFIFO(opts cache.RealFIFOOptions) *RealFIFO {
	if opts.KeyFunction == nil {
		opts.KeyFunction = cache.MetaNamespaceKeyFunc
	}
	// Atomic items never consult the consumer's store; that independence
	// is what makes releasing the lock during processing safe, and what
	// keeps bookmarks in resourceVersion order with Replace and Resync.
	if opts.AtomicEvents {
		if opts.KnownObjects != nil {
			panic("fifo: RealFIFOOptions.KnownObjects must be nil when AtomicEvents is set")
		}
	} else {
		switch {
		case opts.UnlockWhileProcessing:
			panic("fifo: RealFIFOOptions.UnlockWhileProcessing requires AtomicEvents")
		case opts.KnownObjects == nil:
			panic("fifo: RealFIFOOptions.KnownObjects is required when AtomicEvents is not set")
		case opts.EmitDeltaTypeBookmark:
			panic("fifo: RealFIFOOptions.EmitDeltaTypeBookmark requires AtomicEvents")
		}
	}

	f := &RealFIFO{
		name:                  "RealFIFO",
		logger:                klog.Background(),
		keyFunc:               opts.KeyFunction,
		knownObjects:          opts.KnownObjects,
		transformer:           opts.Transformer,
		atomicEvents:          opts.AtomicEvents,
		unlockWhileProcessing: opts.UnlockWhileProcessing,
		emitBookmarks:         opts.EmitDeltaTypeBookmark,
		batchSize:             realBatchSize,
		identifier:            opts.Identifier,
		now:                   time.Now,
		synced:                make(chan struct{}),
	}
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	if n := opts.Identifier.Name(); n != "" {
		f.name = n
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.metrics = newQueueMetrics(opts.Identifier, opts.MetricsProvider)
	f.cond.L = &f.lock
	return f
}

// Close marks the queue closed and wakes blocked consumers. Items already
// queued are still handed out; Pop and PopBatch return cache.ErrFIFOClosed
// once the queue is both closed and empty.
func (f *RealFIFO) Close() {
	f.lock.Lock()
	f.closed = true
	f.cond.Broadcast()
	f.lock.Unlock()
}

// IsClosed reports whether Close has been called.
func (f *RealFIFO) IsClosed() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.closed
}

// Transformer returns the transform applied to objects as they are queued,
// so the reflector can apply the same one to its own temporary stores.
func (f *RealFIFO) Transformer() cache.TransformFunc { return f.transformer }

// HasSynced reports whether the initial population has been processed:
// true once an Add, Update or Delete came first, or once every item queued
// by the first Replace (and anything queued before it) has been processed.
func (f *RealFIFO) HasSynced() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.syncedClosed
}

// HasSyncedChecker returns the queue itself: its Done channel closes when
// HasSynced turns true.
func (f *RealFIFO) HasSyncedChecker() cache.DoneChecker { return f }

// Name is the queue's name for logs and DoneChecker: the Identifier's name,
// else RealFIFOOptions.Name, else "RealFIFO".
func (f *RealFIFO) Name() string { return f.name }

// Done is closed once HasSynced is true.
func (f *RealFIFO) Done() <-chan struct{} { return f.synced }

// markSyncedIfDoneLocked closes synced once the queue has been populated and
// the initial population fully processed. Call it with lock held after
// changing populated or initialPopulationCount.
func (f *RealFIFO) markSyncedIfDoneLocked() {
	if f.syncedClosed || !f.populated || f.initialPopulationCount != 0 {
		return
	}
	f.syncedClosed = true
	close(f.synced)
}

// keyOf finds the key of anything that can sit in the queue or be handed to
// it: a Deltas (its newest delta), a Delta, a tombstone (its recorded key)
// or a plain object (the key function).
func (f *RealFIFO) keyOf(obj interface{}) (string, error) {
	if ds, ok := obj.(cache.Deltas); ok {
		if len(ds) == 0 {
			return "", cache.KeyError{Obj: obj, Err: cache.ErrZeroLengthDeltasObject}
		}
		obj = ds.Newest().Object
	}
	if d, ok := obj.(cache.Delta); ok {
		obj = d.Object
	}
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Key, nil
	}
	return f.keyFunc(obj)
}
