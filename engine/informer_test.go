package engine

import (
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

func newTestInformer(src testSource, kind QueueKind, resync time.Duration) *Informer {
	return NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{Name: "pods", Queue: kind, ResyncPeriod: resync})
}

// Initial list, then add/update/delete during the watch: exact callbacks.
func TestInformerInitialListAndWatch(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			src.Add(pod("a"))
			src.Add(pod("b"))
			inf := newTestInformer(src, kind, 0)
			rec := &recorder{}
			reg, err := inf.AddEventHandler(rec)
			if err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", func() bool { return inf.HasSynced() && reg.HasSynced() })

			initial := rec.snapshot()
			slices.SortFunc(initial, func(x, y call) int { return compareStrings(x.Key, y.Key) })
			want := []call{
				{Kind: "add", Key: "default/a", Initial: true, RV: "1"},
				{Kind: "add", Key: "default/b", Initial: true, RV: "2"},
			}
			if !reflect.DeepEqual(initial, want) {
				t.Fatalf("initial list callbacks:\n got %v\nwant %v", initial, want)
			}

			c := pod("c")
			src.Add(c)
			c2 := c.DeepCopy()
			c2.Labels = map[string]string{"v": "2"}
			src.Modify(c2)
			src.Delete(c2.DeepCopy())
			waitfor.True(t, "watch events", func() bool { return rec.len() == 5 })
			waitDelivered(t, inf, 0, 5)
			got := rec.snapshot()[2:]
			want = []call{
				{Kind: "add", Key: "default/c", RV: "3"},
				{Kind: "update", Key: "default/c", OldRV: "3", RV: "4"},
				{Kind: "delete", Key: "default/c", RV: "5"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("watch callbacks:\n got %v\nwant %v", got, want)
			}
			if keys := sortedKeys(inf.GetStore()); !reflect.DeepEqual(keys, []string{"default/a", "default/b"}) {
				t.Fatalf("store keys = %v", keys)
			}
			snap := inf.Snapshot()
			if snap.Reflector.Lists != 1 || snap.Reflector.ListPages != 1 || snap.Reflector.Watches < 1 {
				t.Fatalf("reflector stats = %+v", snap.Reflector)
			}
			if snap.Reflector.WatchAdded != 1 || snap.Reflector.WatchModified != 1 || snap.Reflector.WatchDeleted != 1 {
				t.Fatalf("watch event counts = %+v", snap.Reflector)
			}
			if snap.QueueKind != kind || !snap.Synced || snap.Store.Objects != 2 {
				t.Fatalf("snapshot = %+v", snap)
			}
			if len(snap.Listeners) != 1 || snap.Listeners[0].Delivered.Total() != 5 || !snap.Listeners[0].Synced {
				t.Fatalf("listener stats = %+v", snap.Listeners)
			}
		})
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The indexer holds the new state before any handler hears of it.
func TestInformerIndexerUpdatedBeforeNotify(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			src.Add(pod("a"))
			inf := newTestInformer(src, kind, 0)
			var bad []string // written by the handler; read once it has returned
			rec := &recorder{}
			rec.onCall = func(c call) {
				obj, exists, _ := inf.GetStore().GetByKey(c.Key)
				switch c.Kind {
				case "add", "update":
					if !exists || rv(obj) != c.RV {
						bad = append(bad, c.String())
					}
				case "delete":
					if exists {
						bad = append(bad, c.String())
					}
				}
			}
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			// One change at a time, so nothing newer can reach the store
			// while the handler looks at it.
			b := pod("b")
			src.Add(b)
			waitfor.True(t, "add", func() bool { return rec.len() == 2 })
			src.Modify(b.DeepCopy())
			waitfor.True(t, "update", func() bool { return rec.len() == 3 })
			src.Delete(b.DeepCopy())
			waitDelivered(t, inf, 0, 4)
			if len(bad) > 0 {
				t.Fatalf("handler saw a store that did not reflect the notification: %v", bad)
			}
		})
	}
}

// A relist after missed deletes gives DeletedFinalStateUnknown with the
// last known object.
func TestInformerRelistAfterMissedDeletes(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel() // each waits out the reflector's backoff before its relist
			src := newTestSource(t)
			for _, n := range []string{"a", "b", "c"} {
				src.Add(pod(n))
			}
			inf := newTestInformer(src, kind, 0)
			rec := &recorder{}
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)

			b, _, _ := inf.GetStore().GetByKey("default/b")
			src.DeleteDropWatch(b.(*corev1.Pod).DeepCopy())
			src.ResetWatch() // history gone: the re-watch gets 410 and the reflector relists
			// The relist: a tombstone for b and (no resync period, so every
			// listener takes syncs) an unchanged-RV update for a and for c.
			// The order across keys differs between the queues.
			waitfor.True(t, "relist callbacks", func() bool { return rec.len() == 6 })
			got := rec.snapshot()[3:]
			slices.SortStableFunc(got, func(x, y call) int { return compareStrings(x.Key, y.Key) })
			want := []call{
				{Kind: "update", Key: "default/a", OldRV: "1", RV: "1"},
				{Kind: "delete", Key: "default/b", RV: "2", Tomb: true},
				{Kind: "update", Key: "default/c", OldRV: "3", RV: "3"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after relist:\n got %v\nwant %v", got, want)
			}
			if keys := sortedKeys(inf.GetStore()); !reflect.DeepEqual(keys, []string{"default/a", "default/c"}) {
				t.Fatalf("store keys = %v", keys)
			}
			snap := inf.Snapshot()
			if snap.Reflector.Relists != 1 || snap.Reflector.Lists != 2 {
				t.Fatalf("want one relist counted, got %+v", snap.Reflector)
			}
		})
	}
}

// A slow handler never holds back a fast one; its backlog drains with
// nothing lost once it resumes.
func TestInformerSlowHandlerBesideFastOne(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			inf := newTestInformer(src, kind, 0)
			fast := &recorder{}
			release := make(chan struct{})
			slow := &recorder{block: release}
			if _, err := inf.AddNamedEventHandler("fast", fast, cache.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := inf.AddNamedEventHandler("slow", slow, cache.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			const n = 50
			for i := range n {
				src.Add(pod(string(rune('a'+i%26)) + string(rune('a'+i/26))))
			}
			waitfor.True(t, "fast handler", func() bool { return fast.len() == n })
			waitfor.True(t, "slow backlog", func() bool {
				for _, l := range inf.Snapshot().Listeners {
					if l.Name == "slow" {
						return l.Pending == n-1 && l.InCallback == "OnAdd"
					}
				}
				return false
			})
			close(release)
			waitfor.True(t, "slow handler", func() bool { return slow.len() == n })
			waitDelivered(t, inf, 0, n)
			waitDelivered(t, inf, 1, n)
			if !reflect.DeepEqual(fast.snapshot(), slow.snapshot()) {
				t.Fatal("slow handler saw a different sequence than the fast one")
			}
			for _, l := range inf.Snapshot().Listeners {
				if l.Pending != 0 || l.Delivered.Add != n {
					t.Fatalf("listener %s after drain: %+v", l.Name, l)
				}
				if l.Name == "slow" && l.HighWater < n-1 {
					t.Fatalf("slow listener high-water mark %d, want >= %d", l.HighWater, n-1)
				}
			}
		})
	}
}

// A handler added after start first receives every cached object as
// OnAdd(obj, true), then later events; it syncs once those have returned.
func TestInformerLateHandler(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			src.Add(pod("a"))
			src.Add(pod("b"))
			inf := newTestInformer(src, kind, 0)
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)

			release := make(chan struct{})
			late := &recorder{block: release}
			reg, err := inf.AddEventHandler(late)
			if err != nil {
				t.Fatal(err)
			}
			waitfor.True(t, "first synthetic add", func() bool { return late.len() == 1 })
			if reg.HasSynced() {
				t.Fatal("registration synced while its initial OnAdd calls were still running")
			}
			close(release)
			waitfor.True(t, "late handler sync", reg.HasSynced)
			src.Add(pod("c"))
			waitfor.True(t, "later event", func() bool { return late.len() == 3 })
			got := late.snapshot()
			slices.SortFunc(got[:2], func(x, y call) int { return compareStrings(x.Key, y.Key) })
			want := []call{
				{Kind: "add", Key: "default/a", Initial: true, RV: "1"},
				{Kind: "add", Key: "default/b", Initial: true, RV: "2"},
				{Kind: "add", Key: "default/c", RV: "3"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("late handler:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// Removing a busy handler drops its backlog; removing it again is fine.
func TestInformerRemoveBusyHandler(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 0)
	release := make(chan struct{})
	busy := &recorder{block: release}
	other := &recorder{}
	reg, err := inf.AddEventHandler(busy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(other); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	for _, n := range []string{"a", "b", "c"} {
		src.Add(pod(n))
	}
	waitfor.True(t, "busy in first callback", func() bool { return busy.len() == 1 })
	waitfor.True(t, "other handler", func() bool { return other.len() == 3 })
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatalf("second remove: %v", err)
	}
	close(release)
	src.Add(pod("d"))
	waitfor.True(t, "other handler", func() bool { return other.len() == 4 })
	if n := busy.len(); n != 1 {
		t.Fatalf("removed handler got %d callbacks, want only the one in progress", n)
	}
	if l := inf.Snapshot().Listeners; len(l) != 1 {
		t.Fatalf("listeners after remove: %+v", l)
	}
}

// Stopping the informer while a handler is stuck: Run waits for the
// callback (as client-go does) and then returns with nothing left running.
func TestInformerStopWhileHandlerStuck(t *testing.T) {
	src := newTestSource(t)
	src.Add(pod("a"))
	inf := newTestInformer(src, RealFIFO, 0)
	release := make(chan struct{})
	stuck := &recorder{block: release}
	if _, err := inf.AddEventHandler(stuck); err != nil {
		t.Fatal(err)
	}
	stop := runInformer(t, inf)
	waitfor.True(t, "stuck in OnAdd", func() bool { return stuck.len() == 1 })
	stopped := make(chan struct{})
	go func() {
		stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Run returned while a handler was still inside a callback")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	<-stopped
	if !inf.IsStopped() {
		t.Fatal("IsStopped is false after Run returned")
	}
	if _, err := inf.AddEventHandler(&recorder{}); err == nil {
		t.Fatal("adding a handler to a stopped informer succeeded")
	}
}

// With ReallyCrash off (informtop's own informers), a panicking handler is
// counted and the listener goes on with the next notification.
func TestInformerHandlerPanicRecovered(t *testing.T) {
	old := utilruntime.ReallyCrash
	utilruntime.ReallyCrash = false
	t.Cleanup(func() { utilruntime.ReallyCrash = old })

	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 0)
	rec := &recorder{}
	rec.onCall = func(c call) {
		if c.Key == "default/boom" {
			panic("handler bug")
		}
	}
	if _, err := inf.AddNamedEventHandler("fragile", rec, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	src.Add(pod("boom"))
	src.Add(pod("after"))
	waitfor.True(t, "next notification", func() bool { return rec.len() == 2 })
	l := inf.Snapshot().Listeners[0]
	if l.Panics != 1 || l.LastPanic == "" {
		t.Fatalf("listener stats after panic: %+v", l)
	}
	found := false
	for _, ev := range inf.Events().Recent(-1) {
		if ev.Type.String() == "HandlerPanic" && ev.Listener == "fragile" {
			found = true
		}
	}
	if !found {
		t.Fatal("no HandlerPanic event was emitted")
	}
}
