// Package benchrun runs the engine over a benchmark ListerWatcher, for the
// benchmarks of packages that wrap one (recording, replay). It lives apart
// from benchlw because the engine's own tests use benchlw.
package benchrun

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/benchlw"
	"github.com/informtop/informtop/engine"
)

// Live runs an engine informer over src (lw or a wrapper of it) until its
// one handler has seen the list of initial pods and events pushed to lw.
func Live(tb testing.TB, src cache.ListerWatcher, lw *benchlw.PodLW, initial, events int) {
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods",
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	runUntil(tb, inf, initial+events, func() { lw.Push(events) })
}

// runUntil runs inf, and push beside it when not nil, until inf's one
// handler (added here) has seen want objects, then stops inf.
func runUntil(tb testing.TB, inf *engine.Informer, want int, push func()) {
	h := benchlw.NewCounter(want)
	if _, err := inf.AddEventHandler(h); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	if push != nil {
		go push()
	}
	<-h.Done()
	cancel()
	wg.Wait()
}
