package benchrun

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/benchlw"
)

// Wire runs an engine informer over src, a ListerWatcher of a
// benchwire.Server (or a wrapper of it), stripping managedFields as the
// kube source does, until its one handler has seen want objects.
func Wire(tb testing.TB, src cache.ListerWatcher, want int) {
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods",
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	if err := inf.SetTransform(func(obj any) (any, error) {
		if a, err := meta.Accessor(obj); err == nil {
			a.SetManagedFields(nil)
		}
		return obj, nil
	}); err != nil {
		tb.Fatal(err)
	}
	h := benchlw.NewCounter(want)
	if _, err := inf.AddEventHandler(h); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	<-h.Done()
	cancel()
	wg.Wait()
}
