package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/source"
)

// watched is an informer NewInformer built and a Set serves: client-go's
// own, observed from outside (its ListerWatcher, a do-nothing listener
// counting what it distributes, and a probe around each handler
// registered through it). It is the SharedIndexInformer
// the controller gets: every method but the handler registrations, Run
// and the watch error handler goes to the informer unchanged.
//
// Locking: mu guards probes (append and remove), resync, counterResync,
// checkPeriod, runCtx and the probes' counterReg; the probes lock
// themselves. Everything else is set before the informer is returned.
type watched struct {
	cache.SharedIndexInformer

	name     string
	resource string                      // "pods", "deployments.apps"; "" unknown
	gvr      schema.GroupVersionResource // its client-go identity, for metrics
	// namespace is the one it watches when known (InNamespace); "" else.
	namespace string
	ring      *instr.Ring // lifecycle and stall events
	set       *Set

	// client-go's only:
	observed *instr.ObservedListerWatcher
	// counter is the informer's counting listener, registered with the
	// informer's default resync period (counterResync, as client-go
	// adjusts it) before any handler.
	counter       *counter
	counterResync time.Duration
	realFIFO      bool
	// resync is the informer's default resync period (client-go's
	// defaultEventHandlerResyncPeriod, its first resyncCheckPeriod).
	resync time.Duration
	// syncLogged: the Synced event was logged.
	syncLogged atomic.Bool
	// errorHandler is the controller's watch error handler, if it set one.
	errorHandler atomic.Pointer[cache.WatchErrorHandlerWithContext]

	mu     sync.Mutex
	probes []*probe
	reg    map[cache.ResourceEventHandlerRegistration]*probe
	// checkPeriod is client-go's resyncCheckPeriod as it computes it from
	// the registrations (it keeps it to itself): what a listener's
	// effective resync period is computed from.
	checkPeriod time.Duration
	// runCtx is the first Run's context (nil before): the probes' HasSynced
	// watches end with it.
	runCtx context.Context
}

// counter is a listener of the agent's that counts the notifications
// client-go's informer distributes to it, resyncs included, and so (the
// informer's own) the objects in its cache: adds less deletes. It does
// nothing else, so it trails the distribution by microseconds. Reading
// the cache's size from the cache would list every key at each look. Its
// fields are atomics: one goroutine writes them, snapshots read them.
type counter struct{ n, size atomic.Int64 }

func (c *counter) OnAdd(any, bool)     { c.n.Add(1); c.size.Add(1) }
func (c *counter) OnUpdate(any, any)   { c.n.Add(1) }
func (c *counter) OnDelete(any)        { c.n.Add(1); c.size.Add(-1) }
func (c *counter) generation() uint64  { return uint64(c.n.Load()) }
func (w *watched) events() *instr.Ring { return w.ring }

// AddEventHandler implements cache.SharedInformer.
func (w *watched) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return w.AddEventHandlerWithOptions(h, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod implements cache.SharedInformer.
func (w *watched) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return w.AddEventHandlerWithOptions(h, cache.HandlerOptions{ResyncPeriod: &resync})
}

// AddEventHandlerWithOptions implements cache.SharedInformer: h is
// registered behind a probe, named as client-go names handlers in its
// logs (controller-runtime's after the kind it watches).
func (w *watched) AddEventHandlerWithOptions(h cache.ResourceEventHandler, opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if h == nil {
		return w.SharedIndexInformer.AddEventHandlerWithOptions(h, opts) // its own error
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p := newProbe(w, w.freeName(listenerName(h, w.resource)), h)
	var (
		reg cache.ResourceEventHandlerRegistration
		err error
	)
	reg, err = w.addClientGo(p, opts)
	if err != nil {
		return nil, err
	}
	p.reg.Store(&reg)
	w.probes = append(w.probes, p)
	if w.reg == nil {
		w.reg = make(map[cache.ResourceEventHandlerRegistration]*probe)
	}
	w.reg[reg] = p
	if w.runCtx != nil {
		go p.awaitSynced(w.runCtx, reg)
	}
	return reg, nil
}

// quiet is the logger of the agent's counting listeners: client-go logs
// its warnings about a requested resync period once, for the handler's
// own registration, not a second time for its counter's.
var quiet = logr.Discard()

// addClientGo registers p on client-go's informer with opts, and the
// listener that counts what p is given.
//
// client-go gives a resync's notifications (and a relist's unchanged
// objects) to the listeners it found due at its last resync check, from
// the period each requested and when it was registered. So p is counted
// by a listener of its own registered with p's options just after it,
// which client-go finds due at the same checks (docs/agent.md says when
// it can miss one). When the informer starts, the probes registered
// before whose period is the informer counter's give theirs up
// (shareCounter): the informer's counter then gets what they get. On an
// informer that never resyncs every listener gets every notification:
// the probes registered before the start count with the informer's
// counter from the first. Called with mu held.
func (w *watched) addClientGo(p *probe, opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	p.requested = w.requestedResync(opts.ResyncPeriod)
	if w.resync == 0 && !w.startedLocked() {
		p.counter = w.counter
		return w.SharedIndexInformer.AddEventHandlerWithOptions(p, opts)
	}
	reg, err := w.SharedIndexInformer.AddEventHandlerWithOptions(p, opts)
	if err != nil {
		return nil, err
	}
	// After p, so that what the two are given differs only by what p got
	// first: the count stays a lower bound. A handler joining a running
	// informer is handed the cache, and so is its counter.
	own := &counter{}
	creg, err := w.SharedIndexInformer.AddEventHandlerWithOptions(own, cache.HandlerOptions{ResyncPeriod: opts.ResyncPeriod, Logger: &quiet})
	if err != nil {
		klog.Background().Error(err, "informtop's agent cannot count this handler's notifications", "informer", w.name, "handler", p.name)
		return reg, nil
	}
	p.counter, p.counterReg = own, creg
	return reg, nil
}

// shareCounter runs as the informer starts, its resync check period
// final: a listener whose effective period is the check period is due at
// every check (client-go checks that often, and the timer restarts after
// each), whenever it was registered before the start. So a probe whose
// period is that of the informer's counter, which is due at every check
// too, gives its own counter up: the informer's counts what it gets. On
// sample-controller's informers, every handler's. Called with mu held,
// before client-go's Run.
func (w *watched) shareCounter() {
	shared := instr.EffectiveResync(w.counterResync, w.checkPeriod)
	if shared != w.checkPeriod {
		return
	}
	for _, p := range w.probes {
		if p.counterReg == nil || instr.EffectiveResync(p.requested, w.checkPeriod) != shared {
			continue
		}
		if err := w.SharedIndexInformer.RemoveEventHandler(p.counterReg); err != nil {
			continue
		}
		p.counterReg = nil
		p.mu.Lock()
		p.counter = w.counter
		p.mu.Unlock()
	}
}

// requestedResync is the resync period a handler registered with this
// ResyncPeriod option asks for, adjusted as client-go adjusts it (at
// least a second; raised to the check period once the informer runs),
// and the informer's check period after it, as client-go lowers it for a
// shorter request made before the start. Called with mu held.
func (w *watched) requestedResync(requested *time.Duration) time.Duration {
	r := ptr.Deref(requested, w.resync)
	if r <= 0 {
		return r
	}
	r = max(r, minimumResyncPeriod)
	if r < w.checkPeriod {
		if w.startedLocked() {
			r = w.checkPeriod
		} else {
			w.checkPeriod = r
		}
	}
	return r
}

// minimumResyncPeriod is client-go's least resync period.
const minimumResyncPeriod = time.Second

// startedLocked says whether Run was called. Called with mu held.
func (w *watched) startedLocked() bool { return w.runCtx != nil }

// RemoveEventHandler implements cache.SharedInformer.
func (w *watched) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	err := w.SharedIndexInformer.RemoveEventHandler(reg)
	if err == nil {
		var counterReg cache.ResourceEventHandlerRegistration
		w.mu.Lock()
		if p, ok := w.reg[reg]; ok {
			delete(w.reg, reg)
			w.probes = deleteProbe(w.probes, p)
			counterReg = p.counterReg
		}
		w.mu.Unlock()
		if counterReg != nil {
			_ = w.SharedIndexInformer.RemoveEventHandler(counterReg)
		}
	}
	return err
}

func deleteProbe(ps []*probe, p *probe) []*probe {
	out := make([]*probe, 0, len(ps))
	for _, q := range ps {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

// freeName is base, or base #2, #3, … when a probe has that name: clients
// tell listeners apart by name. Called with mu held.
func (w *watched) freeName(base string) string {
	name := base
	for n := 2; ; n++ {
		taken := false
		for _, p := range w.probes {
			taken = taken || p.name == name
		}
		if !taken {
			return name
		}
		name = fmt.Sprintf("%s #%d", base, n)
	}
}

// started says whether Run was called.
func (w *watched) started() bool { return w.set.runs(w) }

// Run implements cache.SharedInformer; the set's watchdog looks at the
// informer's handlers while it runs.
func (w *watched) Run(stopCh <-chan struct{}) {
	w.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext implements cache.SharedInformer.
func (w *watched) RunWithContext(ctx context.Context) {
	w.set.running(w, true)
	defer w.set.running(w, false)
	w.mu.Lock()
	if w.runCtx == nil {
		// client-go runs once: a second Run returns at once.
		w.shareCounter()
		w.runCtx = ctx
		for _, p := range w.probes {
			if reg := p.reg.Load(); reg != nil {
				go p.awaitSynced(ctx, *reg)
			}
		}
	}
	w.mu.Unlock()
	w.SharedIndexInformer.RunWithContext(ctx)
}

// SetWatchErrorHandler implements cache.SharedInformer: the controller's
// handler runs after the agent noted the error.
func (w *watched) SetWatchErrorHandler(h cache.WatchErrorHandler) error {
	return w.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { h(r, err) })
}

// SetWatchErrorHandlerWithContext implements cache.SharedInformer.
func (w *watched) SetWatchErrorHandlerWithContext(h cache.WatchErrorHandlerWithContext) error {
	if w.observed == nil {
		return w.SharedIndexInformer.SetWatchErrorHandlerWithContext(h)
	}
	if w.IsStopped() || w.started() {
		return fmt.Errorf("informer has already started")
	}
	w.errorHandler.Store(&h)
	return nil
}

// watchFailed is the watch error handler the agent gives client-go's
// informer: it notes the error, then hands it to the controller's handler
// or client-go's default.
func (w *watched) watchFailed(ctx context.Context, r *cache.Reflector, err error) {
	w.observed.WatchFailed(err)
	if h := w.errorHandler.Load(); h != nil {
		(*h)(ctx, r, err)
		return
	}
	cache.DefaultWatchErrorHandler(ctx, r, err)
}

// upkeep dates the watch events seen since the last tick.
func (w *watched) upkeep(now time.Time) {
	if w.observed != nil {
		w.observed.Upkeep(now)
	}
}

// currentProbes is a copy of the probes, and client-go's resync check
// period.
func (w *watched) currentProbes() ([]*probe, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*probe(nil), w.probes...), w.checkPeriod
}

// snapshot is the informer in the data model.
func (w *watched) snapshot(now time.Time) source.Informer {
	probes, checkPeriod := w.currentProbes()
	inf := source.Informer{
		Name:                    w.name,
		Resource:                w.resource,
		Namespace:               w.namespace,
		Group:                   w.gvr.Group,
		Version:                 w.gvr.Version,
		Implementation:          source.ImplementationClientGo,
		Taken:                   now,
		Started:                 w.started() || w.IsStopped(),
		Stopped:                 w.IsStopped(),
		Synced:                  w.HasSynced(),
		LastSyncResourceVersion: w.LastSyncResourceVersion(),
		Reflector:               source.Reflector(w.observed.Stats(now)),
		Events:                  source.RingStatsOf(w.ring.Stats()),
	}
	inf.QueueKind = source.DeltaFIFO
	if w.realFIFO {
		inf.QueueKind = source.RealFIFO
	}
	inf.Queue = source.Queue{Kind: inf.QueueKind, Synced: inf.Synced}
	idx := w.GetIndexer()
	indexes := make(map[string]int, len(idx.GetIndexers()))
	for name := range idx.GetIndexers() {
		indexes[name] = len(idx.ListIndexFuncValues(name))
	}
	inf.Store = source.Cache{
		Objects:             int(max(w.counter.size.Load(), 0)),
		Indexes:             indexes,
		LastResourceVersion: inf.LastSyncResourceVersion,
		Generation:          w.counter.generation(),
	}
	inf.Listeners = make([]source.Listener, len(probes))
	for i, p := range probes {
		inf.Listeners[i] = p.model(checkPeriod)
	}
	return inf
}

// store reads the informer's cache, redacted by its resource.
func (w *watched) store(resource string) source.StoreReader {
	return source.IndexerStore(w.GetIndexer(), w.counter.generation, resource)
}

// inOrder says whether client-go's informers use RealFIFO.
func inOrder() bool {
	return clientgofeatures.FeatureGates().Enabled(clientgofeatures.InOrderInformers)
}
