package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/engine/fifo"
	"github.com/informtop/informtop/engine/indexer"
	"github.com/informtop/informtop/engine/processor"
)

// Informer is an instrumented cache.SharedIndexInformer.
//
// Locking: startedMu guards the lifecycle fields (started, stopped,
// controller, queue, the pre-start settings). blockDeltas is held while a
// popped item is applied to the indexer and distributed, and while a
// handler joins or leaves, so a late handler sees the cache and the
// notification stream without a gap or a duplicate; it also guards the
// step recorders. startedMu, and the queue's lock (which the pop loop may
// hold while processing), are taken before blockDeltas, never while
// holding it; the indexer's and the processor's locks come after it.
type Informer struct {
	name          string
	resource      string
	queueKind     QueueKind
	identifier    cache.InformerNameAndResource
	metrics       cache.InformerMetricsProvider
	objectType    runtime.Object
	objectDesc    string
	keyFunc       cache.KeyFunc
	indexer       *indexer.Indexer
	processor     *processor.Processor
	lw            cache.ListerWatcher
	observer      *instr.ObservedListerWatcher // nil when instrumentation is off
	events        *instr.Ring
	sink          instr.Sink // nil when instrumentation is off
	verbose       instr.Sink // sink for per-item events; nil unless ItemEvents
	queueHead     int
	gate          *gate
	stepTurn      chan struct{} // holds a token while a Step is under way
	synced        chan struct{}
	syncedChecker *informerSynced
	memory        memory
	noUpkeep      bool

	startedMu               sync.Mutex
	started, stopped        bool
	controller              cache.Controller
	queue                   *gatedQueue
	transform               cache.TransformFunc
	watchErrorHandler       cache.WatchErrorHandlerWithContext
	resyncCheckPeriod       time.Duration
	defaultHandlerResync    time.Duration
	blockDeltas             sync.Mutex
	pendingStep             *stepRecorder // granted by Step, not yet taken by a pop; guarded by blockDeltas
	step                    *stepRecorder // recording the stepped pop in progress; guarded by blockDeltas
	lastSyncResourceVersion func() string
	// mutations is client-go's cache mutation detector: it copies every
	// object handed to the handlers and panics when one changes; fixed.
	mutations cache.MutationDetector
	// processed counts the queue items whose processing has finished
	// (indexer updated, listeners handed their notifications), to compare
	// with the queue's pops: items, since a ReplacedAll item counts as
	// many deltas as it holds objects.
	processed atomic.Uint64
	// batching: the pop loop pops RealFIFO batches (set at start, as
	// client-go's controller decides).
	batching bool
}

var (
	_ cache.SharedIndexInformer = (*Informer)(nil)
	_ cache.DoneChecker         = (*informerSynced)(nil)
)

// NewSharedIndexInformer has the signature of client-go's constructor and
// returns an informer with the default options (RealFIFO, instrumented).
func NewSharedIndexInformer(lw cache.ListerWatcher, exampleObject runtime.Object, defaultResync time.Duration, indexers cache.Indexers) *Informer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, Options{ResyncPeriod: defaultResync, Indexers: indexers})
}

// NewSharedIndexInformerWithOptions returns an informer configured by opts.
func NewSharedIndexInformerWithOptions(lw cache.ListerWatcher, exampleObject runtime.Object, opts Options) *Informer {
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("%T", exampleObject)
	}
	inf := &Informer{
		name:                 name,
		resource:             opts.Resource,
		queueKind:            opts.Queue,
		identifier:           opts.Identifier,
		metrics:              opts.MetricsProvider,
		objectType:           exampleObject,
		objectDesc:           opts.ObjectDescription,
		keyFunc:              cache.DeletionHandlingMetaNamespaceKeyFunc,
		lw:                   lw,
		queueHead:            opts.Instrumentation.QueueHead,
		gate:                 newGate(),
		stepTurn:             make(chan struct{}, 1),
		synced:               make(chan struct{}),
		resyncCheckPeriod:    opts.ResyncPeriod,
		defaultHandlerResync: opts.ResyncPeriod,
		// client-go's own detector, named as client-go names it; a no-op
		// unless KUBE_CACHE_MUTATION_DETECTOR=true.
		mutations: cache.NewCacheMutationDetector(fmt.Sprintf("%T", exampleObject)),
	}
	if inf.queueHead <= 0 {
		inf.queueHead = defaultQueueHead
	}
	inf.syncedChecker = &informerSynced{inf: inf}
	inf.noUpkeep = opts.Instrumentation.NoUpkeep
	inf.events = opts.Instrumentation.Events
	if inf.events == nil {
		inf.events = instr.NewRing(opts.Instrumentation.EventRingSize)
	}
	if !opts.Instrumentation.Off {
		inf.sink = inf.events
		inf.observer = instr.NewObservedListerWatcher(lw, name, inf.sink)
		if opts.Instrumentation.TapWatchStreams {
			inf.observer.TapWatchStreams()
		}
		inf.lw = inf.observer
	}
	inf.indexer = indexer.NewWithMetrics(inf.keyFunc, opts.Indexers, opts.Identifier, opts.MetricsProvider)
	if opts.Instrumentation.ItemEvents {
		inf.verbose = inf.sink
		if inf.observer != nil {
			inf.observer.EmitItems(inf.sink)
		}
	}
	inf.processor = processor.New(processor.Options{Informer: name, Sink: inf.sink, CallbackEvents: opts.Instrumentation.ItemEvents,
		MutationAttribution: opts.Instrumentation.MutationAttribution})
	inf.DescribeMutationsWith(opts.Instrumentation.DescribeMutation)
	return inf
}

// Name is the informer's name in snapshots and events.
func (inf *Informer) Name() string { return inf.name }

// Events returns the ring this informer's events go to.
func (inf *Informer) Events() *instr.Ring { return inf.events }

// Run starts the informer and blocks until stopCh is closed.
func (inf *Informer) Run(stopCh <-chan struct{}) {
	inf.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext starts the informer and blocks until ctx is done and
// every goroutine it started has ended. As with client-go, a handler stuck
// in a callback keeps it from returning until the callback returns.
func (inf *Informer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	if !inf.start() {
		return
	}

	// The processor must outlive the controller: it stops only after the
	// controller has delivered its last notification.
	processorCtx, stopProcessor := context.WithCancel(context.WithoutCancel(ctx))
	var wg wait.Group
	defer wg.Wait()
	defer stopProcessor()
	wg.StartWithChannel(processorCtx.Done(), inf.mutations.Run)
	wg.StartWithContext(processorCtx, inf.processor.Run)
	if !inf.noUpkeep {
		wg.StartWithContext(ctx, inf.upkeep)
	}
	wg.Start(func() {
		select {
		case <-ctx.Done():
		case <-inf.controller.HasSyncedChecker().Done():
			close(inf.synced)
			inf.sink.Emit(instr.Event{Type: pipeline.EventSynced, Informer: inf.name, Detail: "informer"})
		}
	})
	defer func() {
		inf.startedMu.Lock()
		inf.stopped = true
		inf.startedMu.Unlock()
	}()
	inf.controller.RunWithContext(ctx)
}

// start builds the queue and client-go's controller (which owns the
// reflector and the pop loop); false if the informer already ran.
func (inf *Informer) start() bool {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.started {
		utilruntime.HandleError(errors.New("informer " + inf.name + " was started twice; the second Run does nothing"))
		return false
	}
	q := inf.newQueue()
	wrapped, gated := newGatedQueue(q, inf.gate, inf.name, inf.sink)
	gated.beforeStep, gated.afterStep = inf.beginStep, inf.finishStep
	gated.observer = inf.observer
	inf.queue = gated
	cfg := &cache.Config{
		Queue:             wrapped,
		ListerWatcher:     inf.lw,
		ObjectType:        inf.objectType,
		ObjectDescription: inf.objectDesc,
		FullResyncPeriod:  inf.resyncCheckPeriod,
		ShouldResync:      inf.processor.ShouldResync,
		Process: func(obj any, isInInitialList bool) error {
			return inf.handleDeltas(obj, isInInitialList)
		},
		ProcessBatch: func(deltas []cache.Delta, isInInitialList bool) error {
			return inf.handleBatch(deltas, isInInitialList)
		},
		WatchErrorHandlerWithContext: inf.observedWatchErrors(inf.watchErrorHandler),
	}
	_, canBatch := wrapped.(cache.QueueWithBatch)
	inf.batching = canBatch && clientfeatures.FeatureGates().Enabled(clientfeatures.InOrderInformersBatchProcess)
	inf.controller = cache.New(cfg)
	inf.lastSyncResourceVersion = inf.controller.LastSyncResourceVersion
	inf.started = true
	return true
}

// observedWatchErrors records every list/watch failure the reflector
// reports, then hands it to the user's handler or client-go's default one.
func (inf *Informer) observedWatchErrors(user cache.WatchErrorHandlerWithContext) cache.WatchErrorHandlerWithContext {
	if user == nil {
		user = cache.DefaultWatchErrorHandler
	}
	if inf.observer == nil {
		return user
	}
	return func(ctx context.Context, r *cache.Reflector, err error) {
		inf.observer.WatchFailed(err)
		user(ctx, r, err)
	}
}

// newQueue builds the configured queue the way client-go v0.37 builds an
// informer's: by default a RealFIFO with atomic events, unlocking while
// processing and bookmarks; or the classic DeltaFIFO. Either gets the
// informer's metrics identity and provider.
func (inf *Informer) newQueue() fifo.Instrumented {
	if inf.queueKind == DeltaFIFO {
		return fifo.NewDeltaFIFOWithMetrics(cache.DeltaFIFOOptions{
			Name:                  inf.name,
			KeyFunction:           cache.MetaNamespaceKeyFunc,
			KnownObjects:          inf.indexer,
			EmitDeltaTypeReplaced: true,
			Transformer:           inf.transform,
		}, inf.identifier, inf.metrics)
	}
	opts := cache.RealFIFOOptions{
		Name:            inf.name,
		KeyFunction:     cache.MetaNamespaceKeyFunc,
		Transformer:     inf.transform,
		Identifier:      inf.identifier,
		MetricsProvider: inf.metrics,
	}
	// Follow client-go's feature gates, so a process that turns them off
	// gets the same queue behaviour from us as from client-go.
	gates := clientfeatures.FeatureGates()
	if gates.Enabled(clientfeatures.AtomicFIFO) {
		opts.AtomicEvents = true
		opts.UnlockWhileProcessing = gates.Enabled(clientfeatures.UnlockWhileProcessingFIFO)
		opts.EmitDeltaTypeBookmark = true
	} else {
		opts.KnownObjects = inf.indexer
	}
	return fifo.NewRealFIFO(opts)
}

// HasSynced reports whether the queue has handed over the initial list.
func (inf *Informer) HasSynced() bool {
	select {
	case <-inf.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns a DoneChecker closed when HasSynced turns true.
func (inf *Informer) HasSyncedChecker() cache.DoneChecker { return inf.syncedChecker }

type informerSynced struct{ inf *Informer }

func (s *informerSynced) Name() string          { return "informtop informer " + s.inf.name }
func (s *informerSynced) Done() <-chan struct{} { return s.inf.synced }

// LastSyncResourceVersion is the resourceVersion the reflector last synced to.
func (inf *Informer) LastSyncResourceVersion() string {
	inf.startedMu.Lock()
	get := inf.lastSyncResourceVersion
	inf.startedMu.Unlock()
	if get == nil {
		return ""
	}
	return get()
}

// GetStore returns the informer's cache.
func (inf *Informer) GetStore() cache.Store { return inf.indexer }

// GetIndexer returns the informer's cache.
func (inf *Informer) GetIndexer() cache.Indexer { return inf.indexer }

// Indexer returns the informer's cache with its instrumentation methods.
func (inf *Informer) Indexer() *indexer.Indexer { return inf.indexer }

// GetController returns a controller view of the informer; like client-go's,
// its Run does nothing: Run the informer instead.
func (inf *Informer) GetController() cache.Controller { return controllerView{inf} }

// AddIndexers adds indexes, indexing what is already cached.
func (inf *Informer) AddIndexers(indexers cache.Indexers) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.stopped {
		return errors.New("indexers were not added because informer " + inf.name + " has stopped")
	}
	return inf.indexer.AddIndexers(indexers)
}

// SetWatchErrorHandler sets the handler told about list/watch failures.
func (inf *Informer) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	return inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) {
		handler(r, err)
	})
}

// SetWatchErrorHandlerWithContext sets the handler told about list/watch failures.
func (inf *Informer) SetWatchErrorHandlerWithContext(handler cache.WatchErrorHandlerWithContext) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.started {
		return errors.New("informer " + inf.name + " has already started; set the watch error handler before Run")
	}
	inf.watchErrorHandler = handler
	return nil
}

// SetTransform sets the function applied to objects before they are queued.
func (inf *Informer) SetTransform(handler cache.TransformFunc) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.started {
		return errors.New("informer " + inf.name + " has already started; set the transform before Run")
	}
	inf.transform = handler
	return nil
}

// IsStopped reports whether Run has returned.
func (inf *Informer) IsStopped() bool {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	return inf.stopped
}

// controllerView is what GetController returns, as client-go's dummy
// controller: the informer's state, no second run loop.
type controllerView struct{ inf *Informer }

func (c controllerView) Run(<-chan struct{})                 {}
func (c controllerView) RunWithContext(context.Context)      {}
func (c controllerView) HasSynced() bool                     { return c.inf.HasSynced() }
func (c controllerView) HasSyncedChecker() cache.DoneChecker { return c.inf.HasSyncedChecker() }
func (c controllerView) LastSyncResourceVersion() string     { return c.inf.LastSyncResourceVersion() }

// Identifier is the client-go identity the informer was given
// (Options.Identifier): its name and GroupVersionResource, for metrics.
func (inf *Informer) Identifier() cache.InformerNameAndResource { return inf.identifier }

// Resource is the resource the informer watches as kubectl names it
// ("pods", "deployments.apps"): Options.Resource, else the one in
// Options.Identifier, else "" (unknown). Redaction is decided by it.
func (inf *Informer) Resource() string {
	if inf.resource != "" {
		return inf.resource
	}
	if gvr := inf.identifier.GroupVersionResource(); gvr.Resource != "" {
		return gvr.GroupResource().String()
	}
	return ""
}

// DescribeMutationsWith sets how mutation reports list the fields a
// handler changed (Instrumentation.DescribeMutation), unless that was set
// already: whoever serves the informer (the agent) can supply it. resource
// is the informer's. Safe to call while the informer runs.
func (inf *Informer) DescribeMutationsWith(d func(resource string, before, after any) []string) {
	if d == nil {
		return
	}
	resource := inf.Resource()
	inf.processor.DescribeMutationsWith(func(before, after any) []string { return d(resource, before, after) })
}
