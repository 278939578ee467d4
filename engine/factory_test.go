package engine

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// A controller that builds informers through client-go's factory gets the
// engine by swapping in our constructor with InformerFor; the generated
// typed informer and lister then run on it.
func TestFactoryInformerForUsesEngine(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", Labels: map[string]string{"app": "web"}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "dns-1", Labels: map[string]string{"app": "dns"}}},
	)
	factory := informers.NewSharedInformerFactory(client, 0)
	var ours *Informer
	shared := factory.InformerFor(&corev1.Pod{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return c.CoreV1().Pods("").List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return c.CoreV1().Pods("").Watch(ctx, o)
			},
		}
		ours = NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, c), &corev1.Pod{}, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		return ours
	})
	podInformer := factory.Core().V1().Pods()
	// The typed informer wraps the shared one; its cache must be ours.
	if shared != cache.SharedIndexInformer(ours) || podInformer.Informer().GetIndexer() != ours.GetIndexer() {
		t.Fatal("the typed informer does not run on the engine InformerFor built")
	}
	rec := &recorder{}
	if _, err := podInformer.Informer().AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}

	lister := podInformer.Lister()
	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Fatalf("lister.List = %d pods, %v", len(all), err)
	}
	web, err := lister.Pods("default").Get("web-1")
	if err != nil || web.Labels["app"] != "web" {
		t.Fatalf("lister Get = %v, %v", web, err)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitfor.True(t, "the new pod in the lister", func() bool {
		_, err := lister.Pods("default").Get("web-2")
		return err == nil
	})
	if n := ours.Snapshot().Store.Objects; n != 3 {
		t.Fatalf("engine store holds %d objects, want 3", n)
	}
	waitfor.True(t, "handler", func() bool { return rec.len() == 3 })
}
