package engine

import (
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/benchlw"
	corev1 "k8s.io/api/core/v1"
)

// BenchmarkUpkeepCost: what freshness and memory accounting cost the
// engine's throughput. The watch-throughput workload, long enough per run
// (1,000 listed pods, 500,000 watch events, over a second) for the
// once-a-second upkeep to date events and pending notifications and take
// memory samples, with upkeep on and off. Each iteration runs both, in
// alternating order, so both see the same machine load; it reports
// ns/event for each and the cost in percent.
func BenchmarkUpkeepCost(b *testing.B) {
	const initial, events = 1_000, 500_000
	for _, handlers := range []int{1, 10} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) {
			var on, off time.Duration
			i := 0
			for b.Loop() {
				order := []bool{false, true}
				if i%2 == 1 {
					order = []bool{true, false}
				}
				i++
				for _, noUpkeep := range order {
					took := upkeepRun(b, handlers, initial, events, noUpkeep)
					if noUpkeep {
						off += took
					} else {
						on += took
					}
				}
			}
			n := float64(b.N * events)
			b.ReportMetric(float64(on.Nanoseconds())/n, "upkeep-ns/event")
			b.ReportMetric(float64(off.Nanoseconds())/n, "no-upkeep-ns/event")
			b.ReportMetric(100*(float64(on)/float64(off)-1), "cost-%")
		})
	}
}

// upkeepRun is one watch-throughput run; it returns its wall time.
func upkeepRun(b *testing.B, handlers, initial, events int, noUpkeep bool) time.Duration {
	lw := benchlw.New(initial)
	goruntime.GC()
	start := time.Now()
	inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Indexers: benchIndexers(), Instrumentation: Instrumentation{NoUpkeep: noUpkeep}})
	deliverAll(b, inf, lw, handlers, initial, events)
	return time.Since(start)
}
