package benchrun

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
)

// Wire runs an engine informer over src, a ListerWatcher of a
// benchwire.Server (or a wrapper of it), stripping managedFields as the
// kube source does, until its one handler has seen want objects; it
// returns the stopped informer.
func Wire(tb testing.TB, src cache.ListerWatcher, want int) *engine.Informer {
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
	runUntil(tb, inf, want, nil)
	return inf
}
