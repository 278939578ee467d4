package agent

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// resyncObjects is sample-controller's case: 2,000 objects, every handler
// resyncing.
const resyncObjects = 2000

// stuckHandler blocks every call until release is closed.
type stuckHandler struct{ release chan struct{} }

func (h stuckHandler) OnAdd(any, bool)   { <-h.release }
func (h stuckHandler) OnUpdate(any, any) { <-h.release }
func (h stuckHandler) OnDelete(any)      { <-h.release }

// How far a stuck handler's backlog on client-go's informer reads from
// what it owes around a resync of 2,000 objects, the figures docs/agent.md
// gives: each iteration waits for one resync, sampling the figure the
// agent reports until it has counted the whole resync. settle-ms is how
// long the figure took from its first step to the whole resync counted:
// the time it reads low, by at most the resync's size, where between
// resyncs it is exact. late-join-gap-ms is how long client-go takes to
// register a handler on the running informer (handing it the cache): the
// window between a late handler's registration and its counter's, in
// which a resync check would make the counter miss that resync.
//
//	go test ./agent -run '^$' -bench ResyncBacklog -benchtime 5x
func BenchmarkResyncBacklog(b *testing.B) {
	src := fcache.NewFakeControllerSource()
	defer src.Shutdown()
	for i := range resyncObjects {
		src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("cm-%d", i)}})
	}
	set := NewSet()
	w := set.build(benchLW{src}, &corev1.ConfigMap{}, time.Second, cache.Indexers{}, informerConfig{})
	release := make(chan struct{})
	if _, err := w.AddEventHandler(stuckHandler{release}); err != nil {
		b.Fatal(err)
	}
	probes, _ := w.currentProbes()
	p := probes[0]
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.RunWithContext(ctx) }()
	defer func() { close(release); cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), w.HasSynced) {
		b.Fatal("no sync")
	}
	// Sampling yields, so that on 2 cores the informer's goroutines are not
	// kept waiting by the loop measuring them.
	pending := func() int64 {
		runtime.Gosched()
		return int64(p.model(time.Second).Pending)
	}

	// The first stuck call and its initial list behind it.
	level := int64(resyncObjects - 1)
	for pending() < level {
	}
	var settles []time.Duration
	for b.Loop() {
		for pending() == level {
		}
		start := time.Now()
		level += resyncObjects
		for pending() < level {
		}
		settles = append(settles, time.Since(start))
		if got := pending(); got != level {
			b.Fatalf("after a resync the backlog reads %d; want %d", got, level)
		}
	}
	slices.Sort(settles)
	b.ReportMetric(float64(settles[len(settles)/2])/1e6, "settle-ms-p50")
	b.ReportMetric(float64(settles[len(settles)-1])/1e6, "settle-ms-max")

	start := time.Now()
	if _, err := w.SharedIndexInformer.AddEventHandler(nop{}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start))/1e6, "late-join-gap-ms")
}

// benchLW is client-go's fake source, listing at once.
type benchLW struct{ *fcache.FakeControllerSource }

func (benchLW) IsWatchListSemanticsUnSupported() bool { return true }
