//go:build ignore

// controller.go is the small client-go controller whose goroutine dump
// becomes a fixture of attach/pprof: gen.sh runs it once per client-go
// version, each in a module of its own pinning that version. It is never
// compiled as part of the informtop module (the ignore constraint).
//
// It runs one shared informer of pods over a fake clientset with three
// handlers, the shapes a goroutine dump shows:
//   - ResourceEventHandlerFuncs whose UpdateFunc blocks on a pod labelled
//     informtop.dev/block (the stuck handler the parser must name),
//   - a handler type with methods of its own that enqueues into a named
//     workqueue, and blocks too on the labelled pod,
//   - ResourceEventHandlerFuncs that only counts (idle).
//
// It updates the labelled pod, waits until the handler is inside the
// call, and writes runtime/pprof's goroutine profile at debug=2 to stdout.
package main

import (
	"context"
	"os"
	"runtime/pprof"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const blockLabel = "informtop.dev/block"

// podHandler is a handler with methods of its own, as many controllers write.
type podHandler struct {
	queue           workqueue.TypedRateLimitingInterface[string]
	inside, release chan struct{}
}

func (h *podHandler) OnAdd(obj any, _ bool) { h.enqueue(obj) }
func (h *podHandler) OnUpdate(_, obj any) {
	if _, ok := obj.(*corev1.Pod).Labels[blockLabel]; ok {
		close(h.inside)
		waitForRelease(h.release)
	}
	h.enqueue(obj)
}
func (h *podHandler) OnDelete(obj any) { h.enqueue(obj) }

func (h *podHandler) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		h.queue.Add(key)
	}
}

// waitForRelease is where the stuck handler sits: the fixture's user frame.
func waitForRelease(release <-chan struct{}) {
	<-release
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "orders-1"}}
	client := fake.NewClientset(pod)
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Pods().Informer()

	inside := make(chan struct{})
	release := make(chan struct{})
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			if _, ok := obj.(*corev1.Pod).Labels[blockLabel]; ok {
				close(inside)
				waitForRelease(release)
			}
		},
	})
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "pods"})
	defer queue.ShutDown()
	handler := &podHandler{queue: queue, inside: make(chan struct{}), release: release}
	_, _ = inf.AddEventHandler(handler)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}})

	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		panic("the informer did not sync")
	}
	blocked := pod.DeepCopy()
	blocked.Labels = map[string]string{blockLabel: "yes"}
	if _, err := client.CoreV1().Pods("shop").Update(ctx, blocked, metav1.UpdateOptions{}); err != nil {
		panic(err)
	}
	for _, in := range []chan struct{}{inside, handler.inside} {
		select {
		case <-in:
		case <-time.After(30 * time.Second):
			panic("a handler never received the update")
		}
	}
	if err := pprof.Lookup("goroutine").WriteTo(os.Stdout, 2); err != nil {
		panic(err)
	}
	close(release)
}
