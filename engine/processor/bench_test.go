package processor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// BenchmarkProcessorDistribute measures distributing b.N notifications to
// every listener until each handler has received all of them.
func BenchmarkProcessorDistribute(b *testing.B) {
	for _, listeners := range []int{1, 10} {
		b.Run(fmt.Sprintf("listeners=%d", listeners), func(b *testing.B) {
			p := New(Options{Informer: "bench"})
			var remaining atomic.Int64
			remaining.Store(int64(b.N) * int64(listeners))
			done := make(chan struct{})
			for range listeners {
				l := p.NewListener(ListenerConfig{Handler: cache.ResourceEventHandlerFuncs{
					UpdateFunc: func(_, _ any) {
						if remaining.Add(-1) == 0 {
							close(done)
						}
					},
				}})
				p.AddListener(l, nil)
			}
			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				p.Run(ctx)
			}()
			n := UpdateNotification{Old: obj("a", "1"), New: obj("a", "2")}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				p.Distribute(n, false)
			}
			<-done
			b.StopTimer()
			cancel()
			<-stopped
		})
	}
}
