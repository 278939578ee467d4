package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// While paused the queue fills and nothing reaches the handlers; a step
// pops exactly one item and narrates it; resuming drains the rest.
func TestInformerPauseAndStep(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			inf := newTestInformer(src, kind, 0)
			rec := &recorder{}
			if _, err := inf.AddNamedEventHandler("fast", rec, cache.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := inf.Step(ctx); err != ErrNotPaused {
				t.Fatalf("step while running: err = %v, want ErrNotPaused", err)
			}
			inf.SetPaused(true)
			// The pop loop may already be waiting inside the queue, past the
			// gate: then it takes the next item freely. Or it is parked at
			// the gate: then a step lets the item through. Either way one
			// item reaches the handler and the loop ends up at the gate.
			warmUpPaused(t, ctx, src, inf, rec)

			src.Add(pod("a"))
			src.Add(pod("b"))
			waitfor.True(t, "queue to fill", func() bool { return inf.Snapshot().Queue.Depth == 2 })
			if rec.len() != 1 {
				t.Fatalf("handler ran while paused: %v", rec.snapshot())
			}
			if !inf.Snapshot().Paused {
				t.Fatal("snapshot does not say paused")
			}

			res, err := inf.Step(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := pipeline.StepResult{
				Informer:      "pods",
				Kind:          pipeline.StepSingle,
				QueueKind:     kind,
				Batching:      kind == RealFIFO,
				Key:           "default/a",
				Keys:          []string{"default/a"},
				Deltas:        []cache.DeltaType{cache.Added},
				Store:         []string{"Add default/a"},
				Notifications: []pipeline.StepNotification{{Listener: "fast", Callback: "OnAdd", Key: "default/a"}},
				Summary:       []pipeline.NotificationCount{{Listener: "fast", Callback: "OnAdd", Count: 1}},
				Batch:         1,
				// The popped object's own version, which the demo uses to
				// tell its path through the server.
				ResourceVersions: []string{storedRV(t, inf, "default/a")},
			}
			if !reflect.DeepEqual(res, want) {
				t.Fatalf("step:\n got %+v\nwant %+v", res, want)
			}
			waitfor.True(t, "stepped callback", func() bool { return rec.len() == 2 })
			if d := inf.Snapshot().Queue.Depth; d != 1 {
				t.Fatalf("queue depth after one step = %d, want 1", d)
			}
			inf.SetPaused(false)
			waitfor.True(t, "drain", func() bool { return rec.len() == 3 })
		})
	}
}

// Step on an empty queue says so instead of waiting.
func TestInformerStepEmptyQueue(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 0)
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	inf.SetPaused(true)
	res, err := inf.Step(context.Background())
	if err != nil || !res.Empty {
		t.Fatalf("step on empty queue = %+v, %v", res, err)
	}
}

// The queue view shows the queued deltas of a key while paused.
func TestInformerQueueDeltas(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, DeltaFIFO, 0)
	rec := &recorder{}
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	inf.SetPaused(true)
	p := pod("a")
	src.Add(p)
	src.Modify(p.DeepCopy())
	waitfor.True(t, "coalesced deltas", func() bool { return len(inf.QueueDeltas("default/a")) == 2 })
	got := inf.QueueDeltas("default/a")
	if got[0].Type != cache.Added || got[1].Type != cache.Updated {
		t.Fatalf("queued deltas = %v", got)
	}
	snap := inf.Snapshot()
	if snap.Queue.Depth != 1 || snap.Queue.Deltas != 2 || len(snap.Queue.Head) != 1 || snap.Queue.Head[0].Key != "default/a" {
		t.Fatalf("queue stats = %+v", snap.Queue)
	}
	inf.SetPaused(false)
}

// With ItemEvents the log tells the whole story of one watch event:
// watch event, pop, store update, distribute, handler start and finish.
func TestInformerItemEvents(t *testing.T) {
	src := newTestSource(t)
	inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{Name: "pods", Queue: DeltaFIFO, Instrumentation: Instrumentation{ItemEvents: true}})
	rec := &recorder{}
	if _, err := inf.AddNamedEventHandler("fast", rec, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	src.Add(pod("a"))
	waitfor.True(t, "callback", func() bool { return rec.len() == 1 })
	waitfor.True(t, "handler finish event", func() bool {
		evs := inf.Events().Recent(-1)
		return len(evs) > 0 && evs[len(evs)-1].Type.String() == "HandlerFinish"
	})
	var got []string
	for _, ev := range inf.Events().Recent(-1) {
		if ev.ObjectKey() == "default/a" {
			got = append(got, ev.Type.String()+" "+ev.Detail)
		}
	}
	want := []string{"WatchEvent ADDED", "Pop Added", "StoreUpdate Add", "Distribute OnAdd", "HandlerStart OnAdd", "HandlerFinish OnAdd"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events for default/a:\n got %q\nwant %q", got, want)
	}
}

// Without ItemEvents only lifecycle events are logged.
func TestInformerDefaultEventsAreLean(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 0)
	rec := &recorder{}
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	src.Add(pod("a"))
	waitfor.True(t, "callback", func() bool { return rec.len() == 1 })
	seen := map[string]bool{}
	for _, ev := range inf.Events().Recent(-1) {
		seen[ev.Type.String()] = true
	}
	for _, want := range []string{"ListPage", "ListDone", "Replace", "WatchOpen", "Synced"} {
		if !seen[want] {
			t.Errorf("no %s event in the lean log", want)
		}
	}
	for _, ev := range inf.Events().Recent(-1) {
		switch ev.Type.String() {
		case "WatchEvent", "Pop", "StoreUpdate", "Distribute", "HandlerStart", "HandlerFinish":
			t.Fatalf("%s event emitted without ItemEvents", ev.Type)
		}
	}
}

// A pop that was already under way when Step was called (the pop loop had
// passed the gate before the pause) is not part of the step's narration:
// only the item the step itself lets through is.
func TestStepNarratesOnlyItsOwnItem(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			inf := newTestInformer(newTestSource(t), kind, 0)
			rec := &recorder{}
			if _, err := inf.AddNamedEventHandler("fast", rec, cache.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			// Drive the queue by hand, as client-go's pop loop would: start
			// builds the queue without running anything.
			if !inf.start() {
				t.Fatal("start refused")
			}
			q := inf.queue
			process := func(obj any, isInInitialList bool) error { return inf.handleDeltas(obj, isInInitialList) }
			if err := q.Replace(nil, "1"); err != nil {
				t.Fatal(err)
			}
			for q.inner.Stats(0).Depth > 0 { // RealFIFO queues the empty initial list as an item
				if _, err := q.inner.Pop(process); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range []string{"a", "b"} {
				if err := q.Add(pod(n)); err != nil {
					t.Fatal(err)
				}
			}
			inf.SetPaused(true)

			type stepped struct {
				res pipeline.StepResult
				err error
			}
			out := make(chan stepped, 1)
			go func() {
				res, err := inf.Step(context.Background())
				out <- stepped{res, err}
			}()
			waitfor.True(t, "the step to be granted", func() bool {
				inf.gate.mu.Lock()
				defer inf.gate.mu.Unlock()
				return inf.gate.steps == 1
			})
			// The pop that was past the gate takes a...
			if _, err := q.inner.Pop(process); err != nil {
				t.Fatal(err)
			}
			// ...then the loop comes back to the gate and the step takes b.
			if _, err := q.Pop(process); err != nil {
				t.Fatal(err)
			}
			got := <-out
			want := pipeline.StepResult{
				Informer:      "pods",
				Kind:          pipeline.StepSingle,
				QueueKind:     kind,
				Batching:      kind == RealFIFO,
				Key:           "default/b",
				Keys:          []string{"default/b"},
				Deltas:        []cache.DeltaType{cache.Added},
				Store:         []string{"Add default/b"},
				Notifications: []pipeline.StepNotification{{Listener: "fast", Callback: "OnAdd", Key: "default/b"}},
				Summary:       []pipeline.NotificationCount{{Listener: "fast", Callback: "OnAdd", Count: 1}},
				Batch:         1,
				// This test's pods were queued directly, without a version.
				ResourceVersions: []string{""},
			}
			if got.err != nil || !reflect.DeepEqual(got.res, want) {
				t.Fatalf("step = %+v, %v\nwant %+v", got.res, got.err, want)
			}
		})
	}
}

// Steps asked for at once (a quick double press) take turns: one item
// each, narrated separately, and no item popped beyond them.
func TestConcurrentStepsTakeOneItemEach(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, DeltaFIFO, 0)
	rec := &recorder{}
	if _, err := inf.AddNamedEventHandler("fast", rec, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	inf.SetPaused(true)
	for _, n := range []string{"a", "b", "c"} {
		src.Add(pod(n))
	}
	waitfor.True(t, "queue to fill", func() bool { return inf.Snapshot().Queue.Depth == 3 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keys := make(chan string, 2)
	for range 2 {
		go func() {
			res, err := inf.Step(ctx)
			if err != nil {
				keys <- err.Error()
				return
			}
			keys <- res.Key + " " + fmt.Sprint(res.Deltas)
		}()
	}
	got := []string{<-keys, <-keys}
	slices.Sort(got)
	if want := []string{"default/a [Added]", "default/b [Added]"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("two steps narrated %q, want %q", got, want)
	}
	waitfor.True(t, "the stepped callbacks", func() bool { return rec.len() == 2 })
	if s := inf.Snapshot(); s.Queue.Depth != 1 || s.Queue.Head[0].Key != "default/c" {
		t.Fatalf("queue after two steps: %+v, want only default/c left", s.Queue)
	}
	inf.SetPaused(false)
	waitfor.True(t, "drain", func() bool { return rec.len() == 3 })
}

// Pausing an idle informer holds the very next item: the pop loop waits
// for an item before its gate, not inside the queue past it, so nothing
// reaches the handlers until a step or resume.
func TestPauseWhileIdleHoldsTheNextItem(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			inf := newTestInformer(src, kind, 0)
			rec := &recorder{}
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			waitfor.True(t, "the pop loop waiting in the empty queue", inf.queue.inner.PopWaiting)
			inf.SetPaused(true)
			src.Add(pod("a"))
			waitfor.True(t, "a queued and the pop loop held at the gate", func() bool {
				return inf.gate.holding() && inf.Snapshot().Queue.Depth == 1
			})
			if n := rec.len(); n != 0 {
				t.Fatalf("%d callbacks while paused; the paused informer let an item through", n)
			}
			if res, err := inf.Step(context.Background()); err != nil || res.Key != "default/a" {
				t.Fatalf("step = %+v, %v; want default/a", res, err)
			}
			waitfor.True(t, "the stepped callback", func() bool { return rec.len() == 1 })
		})
	}
}

// A resync step narrates the sync notification only for the listeners due
// for a resync: a listener without a resync period is not handed it.
func TestStepNarratesSyncForDueListenersOnly(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel() // each waits for the reflector's one-second resync
			src := newTestSource(t)
			src.Add(pod("a"))
			inf := newTestInformer(src, kind, time.Second)
			for name, period := range map[string]time.Duration{"syncing": time.Second, "quiet": 0} {
				if _, err := inf.AddNamedEventHandler(name, &recorder{}, cache.HandlerOptions{ResyncPeriod: ptrTo(period)}); err != nil {
					t.Fatal(err)
				}
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			inf.SetPaused(true)
			// Only resyncs reach the queue now. The pop already waiting in
			// the queue may take the first one; the next is stepped.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var res pipeline.StepResult
			waitfor.True(t, "a stepped resync", func() bool {
				var err error
				res, err = inf.Step(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return !res.Empty
			})
			want := pipeline.StepResult{
				Key:    "default/a",
				Deltas: []cache.DeltaType{cache.Sync},
				Store:  []string{"Update default/a"},
				// A resync hands out the cached object, at its version.
				ResourceVersions: []string{storedRV(t, inf, "default/a")},
			}
			if kind == RealFIFO {
				// One delta for the whole cache carries no version.
				want = pipeline.StepResult{Key: "(resync of every object)", Deltas: []cache.DeltaType{cache.SyncAll}, Batching: true, ResourceVersions: []string{""}}
			}
			want.Informer, want.Kind, want.QueueKind, want.Keys, want.Batch = "pods", pipeline.StepSingle, kind, []string{want.Key}, 1
			want.Notifications = []pipeline.StepNotification{{Listener: "syncing", Callback: "OnUpdate (sync)", Key: "default/a", Detail: "only listeners due for resync"}}
			want.Summary = []pipeline.NotificationCount{{Listener: "syncing", Callback: "OnUpdate (sync)", Count: 1}}
			if !reflect.DeepEqual(res, want) {
				t.Fatalf("step:\n got %+v\nwant %+v", res, want)
			}
		})
	}
}

// Drained is the state a "the queue has drained" narration claims: an
// empty queue is not enough while a popped item is still being processed.
// (A RealFIFO unlocks while processing a short queue; a DeltaFIFO keeps its
// lock, so its stats wait for the processing anyway.)
func TestDrainedWaitsForThePoppedItemsProcessing(t *testing.T) {
	for _, kind := range []QueueKind{RealFIFO} {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			src.Add(pod("a"))
			inf := newTestInformer(src, kind, 0)
			rec := &recorder{}
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			waitfor.True(t, "drained after the initial list", inf.Drained)

			inf.blockDeltas.Lock() // processing of the next pop waits here
			src.Add(pod("b"))
			waitfor.True(t, "the pop to take b out of the queue", func() bool {
				s := inf.Snapshot().Queue
				return s.Depth == 0 && s.Popped.Added == 1
			})
			drainedWhileProcessing := inf.Drained()
			inf.blockDeltas.Unlock()
			if drainedWhileProcessing {
				t.Fatal("Drained while the popped item was still being processed")
			}
			waitfor.True(t, "drained once b is processed", inf.Drained)
			if _, ok, _ := inf.GetStore().GetByKey("default/b"); !ok {
				t.Fatal("drained, yet b is not in the store")
			}
		})
	}
}

// storedRV is the resourceVersion of the object at key in the informer's
// store, once it is there.
func storedRV(t *testing.T, inf *Informer, key string) string {
	t.Helper()
	var rv string
	waitfor.True(t, key+" in the store", func() bool {
		obj, ok, _ := inf.GetIndexer().GetByKey(key)
		if ok {
			rv = obj.(metav1.Object).GetResourceVersion()
		}
		return ok && rv != ""
	})
	return rv
}

// warmUpPaused leaves a paused informer with one item ("warmup") handled
// and its pop loop parked at the gate, so the queue only fills. The pop
// loop may have been waiting inside the queue, past the gate: then it
// takes the item freely. Or it was parked at the gate already: then a
// step lets the item through.
func warmUpPaused(t *testing.T, ctx context.Context, src testSource, inf *Informer, rec *recorder) {
	t.Helper()
	src.Add(pod("warmup"))
	waitfor.True(t, "warmup delivered, or held at the gate", func() bool {
		return rec.len() == 1 || inf.queue.parked() && inf.Snapshot().Queue.Depth == 1
	})
	if rec.len() == 0 {
		if _, err := inf.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitfor.True(t, "warmup", func() bool { return rec.len() == 1 })
	waitfor.True(t, "the pop loop parked", inf.queue.parked)
}
