package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// pausedInformer runs an informer with one handler "fast", synced, paused,
// with the pop loop's one leftover pop spent, so the queue only fills.
func pausedInformer(t *testing.T, kind QueueKind) (testSource, *Informer, *recorder) {
	t.Helper()
	src := newTestSource(t)
	inf := newTestInformer(src, kind, 0)
	rec := &recorder{}
	if _, err := inf.AddNamedEventHandler("fast", rec, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	inf.SetPaused(true)
	warmUpPaused(t, t.Context(), src, inf, rec)
	return src, inf, rec
}

// A batch step on a RealFIFO pops what client-go's batched pop would: the
// distinct keys at the head, up to the first repeated key.
func TestStepBatchPopsWhatClientGosBatchedPopWould(t *testing.T) {
	src, inf, rec := pausedInformer(t, RealFIFO)
	var pods []*corev1.Pod
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		p := pod(name)
		src.Add(p)
		pods = append(pods, p)
	}
	again := pods[0].DeepCopy()
	again.Labels = map[string]string{"v": "2"}
	src.Modify(again)
	waitfor.True(t, "six rows queued", func() bool { return inf.Snapshot().Queue.Depth == 6 })

	// client-go's RealFIFO holding the same items, popped once.
	ref := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc, AtomicEvents: true})
	for _, p := range pods {
		if err := ref.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.Update(again); err != nil {
		t.Fatal(err)
	}
	refPopped := 0
	if err := ref.PopBatch(func(ds []cache.Delta, _ bool) error { refPopped = len(ds); return nil },
		func(any, bool) error { refPopped = 1; return nil }); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := inf.StepBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Batch != refPopped || len(res.Keys) != refPopped || res.Kind != pipeline.StepBatch || !res.Batching {
		t.Fatalf("batch step popped %d items (keys %q, kind %s, batching %v); client-go's pop took %d", res.Batch, res.Keys, res.Kind, res.Batching, refPopped)
	}
	if want := []pipeline.NotificationCount{{Listener: "fast", Callback: "OnAdd", Count: refPopped}}; !slices.Equal(res.Summary, want) {
		t.Fatalf("summary %v, want %v", res.Summary, want)
	}
	waitfor.True(t, "the batch delivered", func() bool { return rec.len() == 1+refPopped })
	if d := inf.Snapshot().Queue.Depth; d != 6-refPopped {
		t.Fatalf("queue depth %d after the batch, want %d", d, 6-refPopped)
	}
	// The repeated key is next, and a single step pops just it.
	res, err = inf.Step(ctx)
	if err != nil || res.Batch != 1 || res.Key != "default/a" || res.Kind != pipeline.StepSingle {
		t.Fatalf("single step after the batch: %+v, %v", res, err)
	}
	inf.SetPaused(false)
}

// A batch step on a DeltaFIFO pops one key, says so, and counts a hot
// key's notifications per listener instead of listing each.
func TestStepBatchOnADeltaFIFOPopsOneKey(t *testing.T) {
	src, inf, _ := pausedInformer(t, DeltaFIFO)
	hot := pod("hot")
	src.Add(hot)
	const updates = 333
	for i := range updates {
		p := hot.DeepCopy()
		p.Labels = map[string]string{"n": fmt.Sprint(i)}
		src.Modify(p)
	}
	src.Add(pod("other"))
	waitfor.True(t, "the hot key's deltas", func() bool { return inf.Snapshot().Queue.Deltas == updates+2 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := inf.StepBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Batch != 1 || res.Key != "default/hot" || len(res.Deltas) != updates+1 {
		t.Fatalf("batch step on a DeltaFIFO popped %d items, key %s with %d deltas; want the one hot key with %d", res.Batch, res.Key, len(res.Deltas), updates+1)
	}
	want := []pipeline.NotificationCount{{Listener: "fast", Callback: "OnAdd", Count: 1}, {Listener: "fast", Callback: "OnUpdate", Count: updates}}
	if !slices.Equal(res.Summary, want) || res.QueueKind != DeltaFIFO || res.Kind != pipeline.StepBatch {
		t.Fatalf("summary %v (queue %s, kind %s), want %v on a DeltaFIFO batch step", res.Summary, res.QueueKind, res.Kind, want)
	}
	inf.SetPaused(false)
}
