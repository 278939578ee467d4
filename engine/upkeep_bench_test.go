package engine

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/informtop/informtop/internal/benchlw"
	corev1 "k8s.io/api/core/v1"
)

// BenchmarkUpkeepCost: what freshness and memory accounting cost the
// engine's throughput. The watch-throughput workload, long enough per run
// (1,000 listed pods, 500,000 watch events, over a second) for the
// once-a-second upkeep to date events and pending notifications and take
// memory samples, with upkeep on and off side by side in the same run
// (with -count N the pairs alternate).
// Compare /upkeep with /no-upkeep.
func BenchmarkUpkeepCost(b *testing.B) {
	const initial, events = 1_000, 500_000
	for _, handlers := range []int{1, 10} {
		for _, v := range []struct {
			name string
			off  bool
		}{{"upkeep", false}, {"no-upkeep", true}} {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, v.name), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					lw := benchlw.New(initial)
					goruntime.GC()
					b.StartTimer()
					inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Indexers: benchIndexers(), Instrumentation: Instrumentation{NoUpkeep: v.off}})
					all := make(chan struct{})
					var wg sync.WaitGroup
					for range handlers {
						h := benchlw.NewCounter(initial + events)
						if _, err := inf.AddEventHandler(h); err != nil {
							b.Fatal(err)
						}
						wg.Go(func() { <-h.Done() })
					}
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
