package fifo

import (
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// DeltaFIFO is the classic informer queue: one row per object key, each row
// holding every change (a cache.Deltas, oldest first) seen for that key since
// it was last popped. It behaves like client-go v0.37's cache.DeltaFIFO and
// additionally keeps counters and per-row enqueue times for informtop.
//
// Invariants, all guarded by mu:
//   - a key is in order if and only if it is in rows, and appears in order
//     once; its position is fixed from the moment its row is created until
//     the row is popped, however many deltas join it meanwhile;
//   - every row holds at least one delta, and no row ends in two Deleted
//     deltas (see dfDedupTail);
//   - queued == the sum of len(rows[k].deltas); counters only grow.
//
// Locking: every method takes mu itself; callers hold nothing. Pop calls
// the process function with mu held, so the consumer can update state that
// must stay in step with the queue (the knownObjects store) atomically, and
// so must not call back into the queue.
type DeltaFIFO struct {
	mu   sync.RWMutex
	cond sync.Cond // L is &mu; signalled when a row is queued or on Close

	rows   map[string]*dfRow
	order  dfKeyQueue
	queued int // deltas over all rows

	// synced closes once the first batch is popped: populated is set and
	// initialRemaining has reached zero. syncedClosed records the close.
	synced           chan struct{}
	syncedClosed     bool
	populated        bool // a Replace, Add, Update or Delete has been seen
	initialRemaining int  // rows of the first Replace not yet popped

	closed bool
	pause  holdAfterWait

	keyFunc      cache.KeyFunc
	knownObjects cache.KeyListerGetter
	emitReplaced bool
	transform    cache.TransformFunc
	name         string
	logger       klog.Logger

	now     func() time.Time // clock for enqueue times; swapped in tests
	stats   dfCounters
	metrics queueMetrics
}

// dfRow is one queued key's accumulated deltas and when the key entered
// the queue.
type dfRow struct {
	deltas   cache.Deltas
	enqueued time.Time
}

// dfCounters are the monotonic instrumentation counters, guarded by
// DeltaFIFO.mu.
type dfCounters struct {
	added     TypeCounts
	popped    TypeCounts
	pops      uint64
	coalesced uint64
}

// Conformance with the interfaces client-go's reflector and informer use.
var (
	_ cache.Queue             = (*DeltaFIFO)(nil)
	_ cache.TransformingStore = (*DeltaFIFO)(nil)
	_ cache.DoneChecker       = (*DeltaFIFO)(nil)
	_ Instrumented            = (*DeltaFIFO)(nil)
)

// NewDeltaFIFO returns an empty DeltaFIFO configured by opts. As in
// client-go, every option may be left zero: the key function defaults to
// cache.MetaNamespaceKeyFunc and the name to "DeltaFIFO".
func NewDeltaFIFO(opts cache.DeltaFIFOOptions) *DeltaFIFO {
	return NewDeltaFIFOWithMetrics(opts, cache.InformerNameAndResource{}, nil)
}

// NewDeltaFIFOWithMetrics is NewDeltaFIFO feeding client-go's informer
// metrics, which cache.DeltaFIFOOptions has no fields for (in client-go
// v0.37 only RealFIFO publishes them). It follows RealFIFO's rules: metrics
// are published only when id is reserved now and p is not nil, and a named
// id also names the queue. The queued-items gauge counts rows (keys with
// pending deltas), set whenever that number changes; the processing-latency
// histogram gets one observation per Pop that calls a process function.
func NewDeltaFIFOWithMetrics(opts cache.DeltaFIFOOptions, id cache.InformerNameAndResource, p cache.InformerMetricsProvider) *DeltaFIFO {
	f := &DeltaFIFO{
		rows:         make(map[string]*dfRow),
		synced:       make(chan struct{}),
		keyFunc:      opts.KeyFunction,
		knownObjects: opts.KnownObjects,
		emitReplaced: opts.EmitDeltaTypeReplaced,
		transform:    opts.Transformer,
		name:         opts.Name,
		now:          time.Now,
	}
	if f.keyFunc == nil {
		f.keyFunc = cache.MetaNamespaceKeyFunc
	}
	if f.name == "" {
		f.name = KindDeltaFIFO.String()
	}
	if n := id.Name(); n != "" {
		f.name = n
	}
	f.metrics = newQueueMetrics(id, p)
	f.logger = klog.Background()
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.cond.L = &f.mu
	return f
}

// Name is the queue's name: the metrics identity's name when there is
// one, else DeltaFIFOOptions.Name, else "DeltaFIFO". It makes the queue its
// own cache.DoneChecker.
func (f *DeltaFIFO) Name() string { return f.name }

// Done returns a channel closed once the queue has synced (see HasSynced).
func (f *DeltaFIFO) Done() <-chan struct{} { return f.synced }

// HasSyncedChecker returns the queue itself: its Done channel closes at the
// moment HasSynced turns true.
func (f *DeltaFIFO) HasSyncedChecker() cache.DoneChecker { return f }

// HasSynced reports whether the first batch has been popped: every row
// created by the first Replace, or nothing at all when an Add, Update or
// Delete came before any Replace. Taking mu means a true answer is only
// seen after the process function of the last initial row has returned.
func (f *DeltaFIFO) HasSynced() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.syncedClosed
}

// markPopulatedLocked records that the first batch is now defined. Callers
// hold mu.
func (f *DeltaFIFO) markPopulatedLocked() {
	f.populated = true
	f.checkSyncedLocked()
}

// checkSyncedLocked closes synced, once, when the first batch is done.
// Callers hold mu and call it after changing populated or initialRemaining.
func (f *DeltaFIFO) checkSyncedLocked() {
	if f.populated && f.initialRemaining == 0 && !f.syncedClosed {
		f.syncedClosed = true
		close(f.synced)
	}
}

// Transformer returns the TransformFunc from the options, so the reflector
// applies the same transform in its own stores (cache.TransformingStore).
func (f *DeltaFIFO) Transformer() cache.TransformFunc { return f.transform }

// KeyOf returns obj's key. Beyond the key function it understands a
// cache.Deltas (the key of its newest object) and a
// cache.DeletedFinalStateUnknown (its Key field), so tombstones and popped
// items key the same way as the objects they stand for.
func (f *DeltaFIFO) KeyOf(obj interface{}) (string, error) {
	if ds, ok := obj.(cache.Deltas); ok {
		newest := ds.Newest()
		if newest == nil {
			return "", cache.KeyError{Obj: obj, Err: cache.ErrZeroLengthDeltasObject}
		}
		obj = newest.Object
	}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tomb.Key, nil
	}
	return f.keyFunc(obj)
}

// Close marks the queue closed and wakes every blocked Pop. Rows already
// queued can still be popped; only an empty closed queue makes Pop return
// cache.ErrFIFOClosed. Like client-go, Close does not refuse later writes.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *DeltaFIFO) IsClosed() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.closed
}
