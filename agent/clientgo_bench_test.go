package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/benchlw"
)

// What the agent costs client-go's own informer per notification: one
// handler taking a list of 2,000 pods then 20,000 updates, through the
// bare informer and through NewInformer's, without resync and with
// sample-controller's 30 s (the informer's counting listener counts for
// the handler either way), and with the handler asking for 1m of its own
// (a counting listener of the handler's own, as a handler joining a
// running informer has). Allocations are per run.
//
//	go test ./agent -run '^$' -bench ClientGoInformer -benchmem -count 5
func BenchmarkClientGoInformer(b *testing.B) {
	const initial, events = 2000, 20000
	build := map[string]func(cache.ListerWatcher, time.Duration) cache.SharedIndexInformer{
		"bare": func(lw cache.ListerWatcher, resync time.Duration) cache.SharedIndexInformer {
			return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, resync, cache.Indexers{})
		},
		"agent": func(lw cache.ListerWatcher, resync time.Duration) cache.SharedIndexInformer {
			return NewInformer(NewSet())(lw, &corev1.Pod{}, resync, cache.Indexers{})
		},
	}
	for _, c := range []struct {
		name           string
		resync, handle time.Duration // handle: the handler's own period, 0 the informer's
	}{{"bare", 0, 0}, {"agent", 0, 0}, {"bare", 30 * time.Second, 0}, {"agent", 30 * time.Second, 0}, {"bare", 30 * time.Second, time.Minute}, {"agent", 30 * time.Second, time.Minute}} {
		name := c.name + "/resync-" + c.resync.String()
		if c.handle > 0 {
			name += "/handler-" + c.handle.String()
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				lw := benchlw.New(initial)
				inf := build[c.name](lw, c.resync)
				h := benchlw.NewCounter(initial + events)
				opts := cache.HandlerOptions{}
				if c.handle > 0 {
					opts.ResyncPeriod = &c.handle
				}
				if _, err := inf.AddEventHandlerWithOptions(h, opts); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				wg.Go(func() { lw.Push(events) })
				<-h.Done()
				cancel()
				wg.Wait()
			}
		})
	}
}
