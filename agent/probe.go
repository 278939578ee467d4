package agent

import (
	"context"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/source"
)

// stackLabel is the pprof label a probe puts on its listener's goroutine,
// so that a goroutine dump finds the goroutine a stalled call runs on.
const stackLabel = "informtop_listener"

// latencyWindow is how many of the latest calls the latency quantiles
// cover.
const latencyWindow = 256

// The callbacks a probe tells apart.
const (
	callAdd uint8 = iota + 1
	callUpdate
	callSync // an OnUpdate whose object did not change: a resync
	callDelete
)

func callbackName(c uint8) string {
	switch c {
	case callAdd:
		return source.CallbackAdd
	case callUpdate, callSync:
		return source.CallbackUpdate
	case callDelete:
		return source.CallbackDelete
	}
	return ""
}

var probeIDs atomic.Uint64

// probe sits between an informer and one handler registered on it and
// records each call: which callback on which object since when, what
// returned, how long calls take. It adds a lock, two clock reads and no
// allocation to each call, and changes nothing the handler receives.
//
// Invariant (client-go's informer): counter is given what the handler is
// given, less what the handler got between the two registrations (and the
// resync of a check that fell between them), so counter's count less the
// calls taken is a lower bound of the backlog.
//
// Locking: mu guards the fields below it; the watchdog and snapshots take
// it only to copy them. The handler runs outside it. counterReg is
// guarded by the informer's mu. The other fields above mu are set before
// the probe is registered (reg once registered) and never change.
type probe struct {
	name   string
	inner  cache.ResourceEventHandler
	labels context.Context // carries stackLabel = id
	id     string
	inf    *watched

	// client-go's informer only: the resync period requested, as client-go
	// adjusts it, and the registration of the probe's own counter (nil:
	// it counts with the informer's).
	requested  time.Duration
	counterReg cache.ResourceEventHandlerRegistration

	// reg is the informer's registration of this probe, set once added.
	reg atomic.Pointer[cache.ResourceEventHandlerRegistration]

	mu sync.Mutex
	// counter counts what the handler is given (client-go's informer only;
	// nil: pending unknown).
	counter *counter
	// The call in progress: busy, its callback, object and start, and a
	// number that tells calls apart.
	busy  bool
	call  uint8
	obj   any
	since time.Time
	calls uint64
	// taken counts the calls started: pending is what counter counted
	// less taken.
	taken     uint64
	delivered source.Delivered
	latency   [latencyWindow]time.Duration
	latencyN  uint64
	panics    uint64
	syncedAt  time.Time // when the registration synced, as awaitSynced tells
	// initialDone is when the last call of the initial list returned: the
	// moment the registration synced, when the list was not empty.
	initialDone time.Time
	initial     bool // the call in progress is of the initial list
	highWater   int
	// stalled is the number of the call reported stalled (0: none) and
	// frame where it was caught.
	stalled uint64
	frame   *source.StackFrame
}

func newProbe(inf *watched, name string, h cache.ResourceEventHandler) *probe {
	id := "l" + strconv.FormatUint(probeIDs.Add(1), 10)
	return &probe{
		name:   name,
		inner:  h,
		id:     id,
		inf:    inf,
		labels: pprof.WithLabels(context.Background(), pprof.Labels(stackLabel, id)),
	}
}

// awaitSynced notes when reg, the probe's registration on client-go's
// running informer, reaches HasSynced: its informer has synced and the
// handler has returned from every call of its initial list. It returns
// then or when ctx, the informer's, is done; the pipeline never waits on
// it. It asks every 100 ms, as client-go's WaitForCacheSync does: the
// channel client-go v0.37 offers for it is not in the versions the agent
// supports.
func (p *probe) awaitSynced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) {
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		return reg.HasSynced(), nil
	})
	if err != nil {
		return // the informer stopped first
	}
	now := time.Now()
	p.mu.Lock()
	p.syncedAt = now
	if !p.initialDone.IsZero() && p.initialDone.Before(now) {
		// client-go syncs a registration as its last initial call
		// returns; the poll saw it up to 100 ms later.
		p.syncedAt = p.initialDone
	}
	p.mu.Unlock()
}

func (p *probe) OnAdd(obj any, isInInitialList bool) {
	returned := false
	p.begin(callAdd, obj, isInInitialList)
	defer p.end(&returned)
	p.inner.OnAdd(obj, isInInitialList)
	returned = true
}

func (p *probe) OnUpdate(oldObj, newObj any) {
	returned := false
	p.begin(updateKind(oldObj, newObj), newObj, false)
	defer p.end(&returned)
	p.inner.OnUpdate(oldObj, newObj)
	returned = true
}

func (p *probe) OnDelete(obj any) {
	returned := false
	p.begin(callDelete, obj, false)
	defer p.end(&returned)
	p.inner.OnDelete(obj)
	returned = true
}

// updateKind says whether an update is a resync, as client-go decides
// which listeners get it: the resourceVersion did not change.
func updateKind(oldObj, newObj any) uint8 {
	o, ok1 := oldObj.(metav1.Object)
	n, ok2 := newObj.(metav1.Object)
	if ok1 && ok2 && o.GetResourceVersion() == n.GetResourceVersion() {
		return callSync
	}
	return callUpdate
}

// begin marks the call in progress and labels the goroutine it runs on
// (client-go runs a listener's calls on one goroutine; setting the label
// each time costs a pointer store).
func (p *probe) begin(call uint8, obj any, initial bool) {
	pprof.SetGoroutineLabels(p.labels)
	now := time.Now()
	p.mu.Lock()
	p.busy, p.call, p.obj, p.since, p.initial = true, call, obj, now, initial
	p.calls++
	p.taken++
	p.mu.Unlock()
}

// end records the call that began last; returned is false when the
// handler panicked (the panic goes on, untouched).
func (p *probe) end(returned *bool) {
	now := time.Now()
	p.mu.Lock()
	d := now.Sub(p.since)
	call, obj := p.call, p.obj
	p.busy, p.obj = false, nil
	p.latency[p.latencyN%latencyWindow] = d
	p.latencyN++
	if p.initial {
		p.initialDone = now
	}
	if *returned {
		switch call {
		case callAdd:
			p.delivered.Add++
		case callUpdate:
			p.delivered.Update++
		case callSync:
			p.delivered.Sync++
		case callDelete:
			p.delivered.Delete++
			if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				p.delivered.Tombstones++
			}
		}
	} else {
		p.panics++
	}
	recovered := p.stalled == p.calls
	frame := p.frame
	if recovered {
		p.stalled, p.frame = 0, nil
	}
	p.mu.Unlock()
	if recovered {
		e := instr.Event{Type: pipeline.EventRecovered, Informer: p.inf.name, Listener: p.name, Detail: callbackName(call), Duration: d, Obj: obj, Time: now}
		if frame != nil {
			e.Frame = frame.String()
		}
		p.inf.ring.Emit(e)
	}
}

// stall returns the call in progress when it started before cutoff and
// was not reported yet, and marks it reported.
func (p *probe) stall(cutoff time.Time) (call uint8, obj any, since time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.busy || !p.since.Before(cutoff) || p.stalled == p.calls {
		return 0, nil, time.Time{}, false
	}
	p.stalled = p.calls
	return p.call, p.obj, p.since, true
}

// caught records where the stalled call was found.
func (p *probe) caught(f *source.StackFrame) {
	p.mu.Lock()
	if p.stalled == p.calls && p.busy {
		p.frame = f
	}
	p.mu.Unlock()
}

// model is the listener as the data model has it; checkPeriod is
// client-go's informer's resync check period, which its effective resync
// period is computed from.
func (p *probe) model(checkPeriod time.Duration) source.Listener {
	p.mu.Lock()
	l := source.Listener{
		Name:            p.name,
		Delivered:       p.delivered,
		Panics:          p.panics,
		RequestedResync: p.requested,
		ResyncPeriod:    instr.EffectiveResync(p.requested, checkPeriod),
	}
	calls := instr.CallReading{Window: slices.Clone(p.latency[:min(p.latencyN, latencyWindow)])}
	if p.busy {
		calls.Callback, calls.Since, calls.Object = callbackName(p.call), p.since, p.obj
		l.OldestPendingSince = p.since
		if p.frame != nil {
			f := *p.frame
			l.Frame = &f
		}
	}
	if p.counter != nil {
		l.PendingEstimated = true
		pending := p.counter.n.Load() - int64(p.taken)
		l.Pending = int(max(pending, 0))
		p.highWater = max(p.highWater, l.Pending)
	}
	l.HighWater = p.highWater
	p.mu.Unlock()

	calls.Fill(&l)
	if reg := p.reg.Load(); reg != nil && (*reg).HasSynced() {
		l.Synced = true
		p.mu.Lock()
		l.SyncedAt = p.syncedAt
		if l.SyncedAt.IsZero() {
			// Synced before awaitSynced's next look: as it will say, the
			// last initial call's return, or (an empty list) unknown.
			l.SyncedAt = p.initialDone
		}
		p.mu.Unlock()
	}
	return l
}
