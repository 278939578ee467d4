package engine

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/shared/benchlw"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// BenchmarkMutationAttribution: watch throughput (ns per event, every
// handler having seen it) with mutation attribution off (the default) and
// on, with 1 and 10 handlers; the difference per event divided by the
// handlers is its cost per callback, stated in the README.
func BenchmarkMutationAttribution(b *testing.B) {
	const initial, events = 1_000, 20_000
	for _, handlers := range []int{1, 10} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("handlers=%d/attribution=%t", handlers, on), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					lw := benchlw.New(initial)
					goruntime.GC()
					b.StartTimer()
					inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Indexers: benchIndexers(),
						Instrumentation: Instrumentation{MutationAttribution: on}})
					var wg sync.WaitGroup
					for range handlers {
						h := benchlw.NewCounter(initial + events)
						if _, err := inf.AddEventHandler(h); err != nil {
							b.Fatal(err)
						}
						wg.Go(func() { <-h.Done() })
					}
					all := make(chan struct{})
					go func() {
						wg.Wait()
						close(all)
					}()
					go lw.Push(events)
					runUntil(inf, all)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
			})
		}
	}
}

// BenchmarkMutationDetectorOff: what client-go's detector costs the engine
// when KUBE_CACHE_MUTATION_DETECTOR is not set (client-go reads it once, at
// init; run without it), against no detector at all: the one call per
// notification to the no-op detector client-go returns.
func BenchmarkMutationDetectorOff(b *testing.B) {
	pod := benchlw.New(1).Pods().Items[0]
	b.Run("no-detector", func(b *testing.B) {
		for b.Loop() {
			goruntime.KeepAlive(&pod)
		}
	})
	b.Run("detector-off", func(b *testing.B) {
		d := cache.NewCacheMutationDetector("bench")
		for b.Loop() {
			d.AddObject(&pod)
		}
	})
}
