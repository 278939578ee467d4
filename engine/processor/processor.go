package processor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informtop/informtop/agent/instr"
)

// Options configure a Processor.
type Options struct {
	Informer      string      // informer name, put in events
	Sink          instr.Sink  // may be nil
	Clock         clock.Clock // nil = real clock
	LatencyWindow int         // number of recent handler calls kept for p50/p99; 0 = 256
	// CallbackEvents emits a HandlerStart and a HandlerFinish event for
	// every handler call. They cost two events per call per listener, so
	// they are off unless asked for; the listener stats show stalls anyway.
	CallbackEvents bool
	// MutationAttribution copies the object before every OnAdd and OnUpdate
	// and compares it afterwards, to find handlers that change cached
	// objects (see attribution.go). It costs a deep copy and a comparison per
	// call, so it is off unless asked for; off, it costs one nil check.
	MutationAttribution bool
	// DescribeMutation lists the fields a handler changed, for the
	// mutation report; nil lists none (the change is still reported). The
	// processor does not word or redact objects itself: whoever builds it
	// knows what may be shown.
	DescribeMutation func(before, after any) []string
}

// runState is where a Processor is in its one-way life.
type runState uint8

const (
	idle    runState = iota // listeners are buffered, not started
	running                 // every registered listener has its goroutines
	stopped                 // listeners stopped; nothing is delivered any more
)

// Processor is the shared processor: it hands each notification to every
// registered listener (or, for resyncs, to those due) without ever waiting
// for a handler.
//
// Locking: mu guards state, listeners and every registered listener's
// resync schedule (resyncDue, nextResync). Distribute takes it for reading;
// registration, ShouldResync and Run's transitions take it for writing.
// A Listener's own mu may be taken while mu is held, never the reverse.
type Processor struct {
	informer string
	describe atomic.Pointer[func(before, after any) []string] // nil: no field list
	sink     instr.Sink
	perCall  instr.Sink // sink for HandlerStart/Finish events; nil unless CallbackEvents
	clock    clock.Clock
	window   int
	attrib   *attribution // nil unless MutationAttribution

	mu        sync.RWMutex
	state     runState
	listeners []*Listener // registration order

	wg sync.WaitGroup // every listener goroutine started by this processor
}

// New returns an idle Processor; Run starts it.
func New(opts Options) *Processor {
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	p := &Processor{informer: opts.Informer, sink: opts.Sink, clock: c, window: opts.LatencyWindow}
	if opts.CallbackEvents {
		p.perCall = opts.Sink
	}
	if opts.MutationAttribution {
		p.attrib = newAttribution()
	}
	if d := opts.DescribeMutation; d != nil {
		p.describe.Store(&d)
	}
	return p
}

// AddListener registers l, created by this processor's NewListener. The
// initial objects are queued first, as AddNotification{Obj, IsInInitialList:
// true}, before anything distributed later. It returns whether the processor
// is running, in which case l's goroutines are started now; otherwise Run
// starts them. Once the processor has stopped, l is listed but stopped at
// once and never called. Registering the same listener again changes nothing.
func (p *Processor) AddListener(l *Listener, initial []any) (started bool) {
	if l.p != p {
		panic("processor: AddListener with a listener created by another processor")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	isRunning := p.state == running
	if l.registered {
		return isRunning
	}
	l.registered = true
	if p.state == stopped {
		p.listeners = append(p.listeners, l)
		l.stop()
		return false
	}
	// As in client-go, a new listener takes sync notifications until the
	// next ShouldResync decides whether it is due.
	l.resyncDue = true
	p.listeners = append(p.listeners, l)
	for _, obj := range initial {
		l.enqueue(entry{n: AddNotification{Obj: obj, IsInInitialList: true}})
	}
	// Starting after the initial list is queued matters: the sync tracker
	// must count those adds before it may learn that upstream has synced.
	if isRunning {
		p.start(l)
	}
	return isRunning
}

// RemoveListener unregisters the listener behind handle, drops its backlog
// and stops its goroutines once the callback in progress (if any) returns;
// it does not wait for that. Removing an unknown or already removed
// listener returns nil; a handle that is not a *Listener is an error.
func (p *Processor) RemoveListener(handle cache.ResourceEventHandlerRegistration) error {
	l, ok := handle.(*Listener)
	if !ok {
		return fmt.Errorf("handler was not removed: the registration is a %T, not one returned by this informer's AddEventHandler", handle)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.listeners, l)
	if i < 0 {
		return nil
	}
	p.listeners = slices.Delete(p.listeners, i, i+1)
	l.stop()
	return nil
}

// Distribute queues notification (an AddNotification, UpdateNotification or
// DeleteNotification) on every listener's backlog; with sync set, only on
// the listeners the last ShouldResync found due. It never waits for a
// handler. Before Run the notifications wait in the backlogs; after the
// processor has stopped they are discarded.
func (p *Processor) Distribute(notification any, sync bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.state == stopped {
		return
	}
	e := newEntry(notification, sync)
	for _, l := range p.listeners {
		if sync && !l.resyncDue {
			continue
		}
		l.enqueue(e)
	}
}

// Recipients returns, in registration order, the listeners a Distribute
// with the same sync flag would reach now: every listener, or for a sync
// only those the last ShouldResync found due.
func (p *Processor) Recipients(sync bool) []*Listener {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.state == stopped {
		return nil
	}
	out := make([]*Listener, 0, len(p.listeners))
	for _, l := range p.listeners {
		if !sync || l.resyncDue {
			out = append(out, l)
		}
	}
	return out
}

// Run starts every registered listener, waits for ctx to be done, then
// stops them (dropping their backlogs) and returns once all their
// goroutines have exited: a handler stuck in a callback keeps Run from
// returning until it returns. Run works once; later calls return at once.
func (p *Processor) Run(ctx context.Context) {
	p.mu.Lock()
	if p.state != idle {
		p.mu.Unlock()
		return
	}
	p.state = running
	for _, l := range p.listeners {
		p.start(l)
	}
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	p.state = stopped
	for _, l := range p.listeners {
		l.stop()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// start launches l's goroutines. Callers hold p.mu for writing, which
// orders every start before Run's wg.Wait.
func (p *Processor) start(l *Listener) {
	l.mu.Lock()
	l.started = true
	l.mu.Unlock()
	p.wg.Go(l.run)
	p.wg.Go(l.watchSynced)
}

// Listeners returns the registered listeners in registration order.
func (p *Processor) Listeners() []*Listener {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return slices.Clone(p.listeners)
}

// Stats returns every registered listener's stats in registration order.
func (p *Processor) Stats() []ListenerStats {
	ls := p.Listeners()
	out := make([]ListenerStats, len(ls))
	for i, l := range ls {
		out[i] = l.Stats()
	}
	return out
}

// logger is what panics and unknown notifications are reported to, as
// client-go reports them through utilruntime.
func (p *Processor) logger(listener string) klog.Logger {
	return klog.Background().WithValues("informer", p.informer, "handler", listener)
}

// DescribeMutationsWith sets how mutation reports list the changed fields,
// unless it was set already (by Options or an earlier call); it reports
// whether it set it. Safe to call while the processor runs.
func (p *Processor) DescribeMutationsWith(d func(before, after any) []string) bool {
	if d == nil {
		return false
	}
	return p.describe.CompareAndSwap(nil, &d)
}
