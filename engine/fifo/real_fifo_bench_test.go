package fifo

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// BenchmarkRealFIFO measures add-to-processed throughput with client-go's
// default informer options: one producer goroutine adds b.N events over
// 1000 keys while the consumer drains them with PopBatch. One op is one
// event.
func BenchmarkRealFIFO(b *testing.B) {
	pods := make([]interface{}, 1000)
	for i := range pods {
		pods[i] = rfPod("p"+strconv.Itoa(i), "1")
	}
	run := func(b *testing.B, q cache.QueueWithBatch) {
		b.ReportAllocs()
		b.ResetTimer()
		produced := make(chan error, 1)
		go func() {
			for i := 0; i < b.N; i++ {
				if err := q.Add(pods[i%len(pods)]); err != nil {
					produced <- err
					return
				}
			}
			produced <- nil
		}()
		done := 0
		count := func(ds []cache.Delta, _ bool) error { done += len(ds); return nil }
		single := func(interface{}, bool) error { done++; return nil }
		for done < b.N {
			if err := q.PopBatch(count, single); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := <-produced; err != nil {
			b.Fatal(err)
		}
		q.Close()
	}
	b.Run("ours", func(b *testing.B) { run(b, NewRealFIFO(rfDefaultOpts())) })
	b.Run("client-go", func(b *testing.B) { run(b, cache.NewRealFIFOWithOptions(rfDefaultOpts())) })
}
