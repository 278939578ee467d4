package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// gate is a handler whose calls wait while it is closed; it notes when
// each call started.
type gate struct {
	open    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	started []time.Time
}

// newGate returns a closed gate, opened when the test ends. runInformer's
// cleanup waits for the handler's calls to return, so a gate made before
// it is opened again by a cleanup registered after it.
func newGate(t *testing.T) *gate {
	g := &gate{open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

func (g *gate) call() {
	g.mu.Lock()
	g.started = append(g.started, time.Now())
	g.mu.Unlock()
	holdUntil(g.open)
}

func (g *gate) OnAdd(any, bool)   { g.call() }
func (g *gate) OnUpdate(any, any) { g.call() }
func (g *gate) OnDelete(any)      { g.call() }

// calls is how many calls started, and when the last did.
func (g *gate) calls() (int, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.started) == 0 {
		return 0, time.Time{}
	}
	return len(g.started), g.started[len(g.started)-1]
}

// idle is a handler that does nothing.
type idle struct{}

func (idle) OnAdd(any, bool)   {}
func (idle) OnUpdate(any, any) {}
func (idle) OnDelete(any)      {}

// poll reads frames until cond holds, and returns the frame it held in.
func poll(t *testing.T, what string, read func() api.Frame, cond func(api.Frame) bool) api.Frame {
	t.Helper()
	var f api.Frame
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		f = read()
		return cond(f), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last frame's informers: %+v", what, err, f.Snapshots)
	}
	return f
}

func listeners(f api.Frame) []source.Listener {
	if len(f.Snapshots) != 1 {
		return nil
	}
	return f.Snapshots[0].Listeners
}

// A handler stuck on an informer that resyncs every second: its backlog
// counts the resync notifications client-go queues behind the stuck
// call, as many as a healthy handler beside it took, and the resync
// period it asked for (the informer's) is said, not "never".
func TestClientGoBacklogCountsResyncs(t *testing.T) {
	const n = 20
	src := newFakeSource(t)
	for i := range n {
		src.Add(configMap(fmt.Sprintf("cm-%d", i), nil))
	}
	set := agent.NewSet()
	inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, time.Second, cache.Indexers{})
	stuck := newGate(t)
	for _, h := range []cache.ResourceEventHandler{stuck, idle{}} {
		if _, err := inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
	}
	runInformer(t, inf)
	t.Cleanup(stuck.release)
	frames := agentFrames(t, set)

	// Between resyncs the healthy handler has taken every sync: the stuck
	// one owes its initial list less the call it is in, and every sync.
	f := poll(t, "two resyncs queued behind the stuck call", frames, func(f api.Frame) bool {
		ls := listeners(f)
		if len(ls) != 2 {
			return false
		}
		syncs := int(ls[1].Delivered.Sync)
		return syncs >= 2*n && ls[1].InCallback == "" && ls[0].Pending == n-1+syncs
	})
	for _, l := range listeners(f) {
		if l.RequestedResync != time.Second || l.ResyncPeriod != time.Second {
			t.Errorf("%s: resync requested %v, effective %v; want the informer's 1s both", l.Name, l.RequestedResync, l.ResyncPeriod)
		}
	}
	if l := listeners(f)[0]; !l.PendingEstimated || l.InCallback != source.CallbackAdd {
		t.Errorf("the stuck handler reads %+v; want in OnAdd, its pending a lower bound", l)
	}

	// Released, it takes its backlog, and then owes nothing.
	stuck.release()
	poll(t, "the stuck handler to drain", frames, func(f api.Frame) bool {
		ls := listeners(f)
		return len(ls) == 2 && ls[0].Delivered.Sync >= 2*n && ls[0].InCallback == "" && ls[0].Pending == 0
	})
}

// A handler asking for a resync period of its own (2s where the informer
// checks every second), registered before the start or joining the
// running informer (handed the cache): its backlog counts the syncs
// queued behind its stuck call, a whole resync at a time.
func TestClientGoBacklogWithAPeriodOfItsOwnCountsResyncs(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(map[bool]string{false: "before the start", true: "after the start"}[late], func(t *testing.T) {
			const n = 10
			src := newFakeSource(t)
			for i := range n {
				src.Add(configMap(fmt.Sprintf("cm-%d", i), nil))
			}
			set := agent.NewSet()
			inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, time.Second, cache.Indexers{})
			if _, err := inf.AddEventHandler(idle{}); err != nil {
				t.Fatal(err)
			}
			stuck := newGate(t)
			add := func() {
				if _, err := inf.AddEventHandlerWithResyncPeriod(stuck, 2*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			if !late {
				add()
			}
			runInformer(t, inf)
			t.Cleanup(stuck.release)
			if late {
				add()
			}
			frames := agentFrames(t, set)
			f := poll(t, "a resync queued behind the stuck call", frames, func(f api.Frame) bool {
				ls := listeners(f)
				return len(ls) == 2 && ls[1].InCallback != "" && ls[1].Pending >= n-1+n && (ls[1].Pending-(n-1))%n == 0
			})
			if l := listeners(f)[1]; l.RequestedResync != 2*time.Second || l.ResyncPeriod != 2*time.Second {
				t.Errorf("the handler's resync: requested %v, effective %v; want 2s both", l.RequestedResync, l.ResyncPeriod)
			}
			stuck.release()
			poll(t, "the stuck handler to drain", frames, func(f api.Frame) bool {
				ls := listeners(f)
				return len(ls) == 2 && ls[1].Delivered.Sync >= n && ls[1].InCallback == "" && ls[1].Pending == 0
			})
		})
	}
}

// A relist that finds the objects unchanged gives every handler of an
// informer without resync an OnUpdate each (client-go counts them as
// syncs): once the handler has taken them it owes nothing, where the
// count used to keep them as a backlog for good.
func TestClientGoBacklogAfterARelist(t *testing.T) {
	const n = 5
	src := newFakeSource(t)
	for i := range n {
		src.Add(configMap(fmt.Sprintf("cm-%d", i), nil))
	}
	set := agent.NewSet()
	inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
	if _, err := inf.AddEventHandler(idle{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	frames := agentFrames(t, set)
	poll(t, "the initial list taken", frames, func(f api.Frame) bool {
		ls := listeners(f)
		return len(ls) == 1 && ls[0].Delivered.Add == n
	})
	// A change the watch never sends, then the watch dropped with its
	// history: the reflector's resourceVersion is gone, so it relists.
	src.AddDropWatch(configMap("unseen", nil))
	src.ResetWatch()
	f := poll(t, "the relist's updates taken", frames, func(f api.Frame) bool {
		ls := listeners(f)
		return len(ls) == 1 && ls[0].Delivered.Sync == n && ls[0].Delivered.Add == n+1
	})
	if l := listeners(f)[0]; l.Pending != 0 || l.RequestedResync != 0 || l.ResyncPeriod != 0 {
		t.Errorf("after the relist the idle handler reads %d pending, resync %v/%v; want 0 pending, no resync", l.Pending, l.RequestedResync, l.ResyncPeriod)
	}
}

// "HasSynced at" is when the registration synced: after its handler
// returned from the last call of its initial list, not when a client
// first read the agent, however much later that is.
func TestClientGoHasSyncedAtIsTheRegistrations(t *testing.T) {
	src := newFakeSource(t)
	src.Add(configMap("first", nil))
	set := agent.NewSet()
	inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
	slow := newGate(t)
	reg, err := inf.AddEventHandler(slow)
	if err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	t.Cleanup(slow.release)
	if reg.HasSynced() {
		t.Fatal("the registration synced while its handler was in its initial list")
	}
	released := time.Now()
	slow.release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return reg.HasSynced(), nil
	}); err != nil {
		t.Fatal("the registration never synced")
	}
	// More work for the handler after the sync, all of it before anyone
	// reads the agent.
	src.Add(configMap("later", nil))
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		n, _ := slow.calls()
		return n == 2, nil
	}); err != nil {
		t.Fatal("the handler never got the object added after the sync")
	}
	_, laterCall := slow.calls()

	frames := agentFrames(t, set)
	f := poll(t, "the time of the sync", frames, func(f api.Frame) bool {
		ls := listeners(f)
		return len(ls) == 1 && ls[0].Synced && !ls[0].SyncedAt.IsZero()
	})
	at := listeners(f)[0].SyncedAt
	if at.Before(released) || !at.Before(laterCall) {
		t.Errorf("HasSynced at %s; want between the release (%s) and the call after the sync (%s)",
			at.Format(time.StampMicro), released.Format(time.StampMicro), laterCall.Format(time.StampMicro))
	}
}
