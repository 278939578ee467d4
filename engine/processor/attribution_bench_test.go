package processor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/benchlw"
)

// BenchmarkAttributionPerCallback: one listener handling updates of a
// typical pod, with mutation attribution off and on; ns/op is the cost of
// one callback, so the difference is attribution's cost per callback.
func BenchmarkAttributionPerCallback(b *testing.B) {
	pods := benchlw.New(2).Pods().Items
	n := UpdateNotification{Old: &pods[0], New: &pods[1]}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("attribution=%t", on), func(b *testing.B) {
			p := New(Options{Informer: "bench", MutationAttribution: on})
			var remaining atomic.Int64
			remaining.Store(int64(b.N))
			done := make(chan struct{})
			l := p.NewListener(ListenerConfig{Handler: cache.ResourceEventHandlerFuncs{
				UpdateFunc: func(_, _ any) {
					if remaining.Add(-1) == 0 {
						close(done)
					}
				},
			}})
			p.AddListener(l, nil)
			ctx, cancel := context.WithCancel(context.Background())
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				p.Run(ctx)
			}()
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
