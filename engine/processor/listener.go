package processor

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/cache/synctrack"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

// initialBacklog is the starting capacity of a listener's backlog, as
// client-go's initialBufferSize; it doubles whenever it fills up.
const initialBacklog = 1024

// ListenerConfig describes one handler registration.
type ListenerConfig struct {
	// Name is shown in the UI and events; "" derives one from the
	// handler's type or funcs.
	Name    string
	Handler cache.ResourceEventHandler
	// RequestedResync is the period asked for, after the informer's own
	// adjustments (at least one second; raised to the check period when
	// added after start), like client-go's requestedResyncPeriod. It is what
	// ResyncCheckPeriodChanged recomputes the effective period from.
	RequestedResync time.Duration
	// Resync is the effective period (0: never), as the informer computes
	// it from RequestedResync and its resync check period.
	Resync time.Duration
	// UpstreamSynced is the informer's HasSyncedChecker(); nil counts as
	// already synced.
	UpstreamSynced cache.DoneChecker
}

// Listener relays notifications to one handler, in order, one call at a
// time, from its own unbounded backlog. It is the registration handle
// returned to users (cache.ResourceEventHandlerRegistration).
//
// Invariants: the backlog only grows from Distribute/AddListener and only
// shrinks from the listener's run goroutine (or is dropped on stop); every
// initial-list add is counted by the sync tracker before it is queued and
// marked finished only after OnAdd returns.
//
// Locking: mu guards the fields below it and is held only for O(1) work
// (plus copying the latency window in Stats), never across a handler call.
// resyncDue, nextResync and registered belong to the Processor's mu.
type Listener struct {
	p               *Processor
	name            string
	handler         cache.ResourceEventHandler
	upstream        cache.DoneChecker
	tracker         *synctrack.SingleFileTracker
	logger          klog.Logger
	requestedResync time.Duration
	resyncPeriod    atomic.Int64 // effective period as a time.Duration; written under p.mu

	stopCh     chan struct{} // closed once, when the listener stops
	finished   chan struct{} // closed when no callback can run any more
	wake       chan struct{} // one token: the backlog may have grown
	syncNoted  atomic.Bool   // EventSynced has been emitted
	resyncDue  bool          // guarded by p.mu
	nextResync time.Time     // guarded by p.mu
	registered bool          // guarded by p.mu: AddListener has taken it

	mu        sync.Mutex
	backlog   *backlog // grows without bound and never shrinks, as in client-go
	highWater int
	started   bool
	stopped   bool
	busy      bool      // a callback is running
	current   entry     // the notification being handled while busy
	since     time.Time // when the current callback started
	delivered pipeline.Delivered
	latency   latencyWindow
	panics    uint64
	lastPanic string
	mutations cacheMutations
	syncedAt  time.Time   // when noteSynced first saw the registration synced
	pending   checkpoints // dates the unhandled notifications; see pending_age.go
}

// alreadySynced stands in for a missing upstream: it is done from the start.
type alreadySynced struct{}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (alreadySynced) Name() string          { return "upstream" }
func (alreadySynced) Done() <-chan struct{} { return closedChan }

// NewListener builds a listener for cfg; it receives nothing until
// AddListener registers it. Its first resync is due one Resync period
// from now on the processor's clock.
func (p *Processor) NewListener(cfg ListenerConfig) *Listener {
	if cfg.Handler == nil {
		panic("processor: ListenerConfig.Handler is nil")
	}
	name := cfg.Name
	if name == "" {
		name = instr.HandlerName(cfg.Handler)
	}
	upstream := cfg.UpstreamSynced
	if upstream == nil {
		upstream = alreadySynced{}
	}
	l := &Listener{
		p:               p,
		name:            name,
		handler:         cfg.Handler,
		upstream:        upstream,
		tracker:         synctrack.NewSingleFileTracker(fmt.Sprintf("%s + event handler %s", upstream.Name(), name)),
		logger:          p.logger(name),
		requestedResync: cfg.RequestedResync,
		stopCh:          make(chan struct{}),
		finished:        make(chan struct{}),
		wake:            make(chan struct{}, 1),
		nextResync:      p.clock.Now().Add(cfg.Resync),
		backlog:         newBacklog(),
		latency:         newLatencyWindow(p.window),
	}
	l.resyncPeriod.Store(int64(cfg.Resync))
	return l
}

// Name is the listener's display name.
func (l *Listener) Name() string { return l.name }

// HasSynced reports whether the informer has synced and every initial-list
// OnAdd handed to this listener has returned.
func (l *Listener) HasSynced() bool { return l.tracker.HasSynced() }

// HasSyncedChecker is done once HasSynced is true.
func (l *Listener) HasSyncedChecker() cache.DoneChecker { return l.tracker }

// ShutdownChan is closed once the listener will make no more callbacks:
// after removal or the processor's stop, when the callback in progress has
// returned (at once if it never started). cache.ShutDownEventHandler waits
// on it.
func (l *Listener) ShutdownChan() <-chan struct{} { return l.finished }

var _ cache.ResourceEventHandlerRegistration = (*Listener)(nil)

// stop ends the listener: the backlog is dropped and nothing more is
// delivered. Idempotent.
func (l *Listener) stop() {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	l.stopped = true
	l.backlog = newBacklogOf(0) // release the dropped backlog's memory; nothing is added after stop
	started := l.started
	l.mu.Unlock()
	close(l.stopCh)
	if !started {
		close(l.finished)
	}
}

// newBacklog returns an empty backlog. A burst (an initial list, a relist)
// leaves it grown for the life of the listener, as in client-go.
func newBacklog() *backlog { return newBacklogOf(initialBacklog) }

// Backlog copies at most max of the notifications waiting for the handler,
// oldest first, not counting the one in progress. It holds the listener's
// lock for the copy only, so max bounds its cost.
func (l *Listener) Backlog(max int) []pipeline.Pending {
	if max <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.backlog.peek(max)
}
