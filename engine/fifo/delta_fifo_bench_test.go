package fifo

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// BenchmarkDeltaFIFO measures add/pop throughput of our DeltaFIFO against
// client-go's on the same workload: each iteration adds 1024 keys, updates
// each once (coalescing onto the queued row) and pops them all. ns/item is
// the cost of one key's Add+Update+Pop.
func BenchmarkDeltaFIFO(b *testing.B) {
	objs := make([]*dfTestObj, 1024)
	for i := range objs {
		objs[i] = dfObj("pod-"+strconv.Itoa(i), i)
	}
	noop := func(interface{}, bool) error { return nil }
	run := func(b *testing.B, q cache.Queue) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range objs {
				if err := q.Add(o); err != nil {
					b.Fatal(err)
				}
			}
			for _, o := range objs {
				if err := q.Update(o); err != nil {
					b.Fatal(err)
				}
			}
			for range objs {
				if _, err := q.Pop(noop); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objs)), "ns/item")
	}
	b.Run("ours", func(b *testing.B) {
		run(b, NewDeltaFIFO(cache.DeltaFIFOOptions{}))
	})
	b.Run("client-go", func(b *testing.B) {
		run(b, cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{}))
	})
}
