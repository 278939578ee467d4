// Package benchlw is the ListerWatcher the engine's and the agent's
// throughput benchmarks share: a fixed list of pods, then whatever a
// benchmark pushes into the watch, with no server in between.
package benchlw

import (
	"strconv"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// PodLW serves List from a fixed PodList and one watch that Push fills.
// Locking: mu guards watch; ready closes when the watch is first opened.
type PodLW struct {
	list  *corev1.PodList
	mu    sync.Mutex
	watch *watch.FakeWatcher
	ready chan struct{}
}

// New lists n pods over 20 namespaces with 50 app labels.
func New(n int) *PodLW {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}}
	list.Items = make([]corev1.Pod, n)
	for i := range list.Items {
		p := &list.Items[i]
		p.Namespace = "ns-" + strconv.Itoa(i%20)
		p.Name = "pod-" + strconv.Itoa(i)
		p.ResourceVersion = strconv.Itoa(i + 1)
		p.Labels = map[string]string{"app": "app-" + strconv.Itoa(i%50)}
	}
	return Of(list)
}

// Of serves list (shared, never changed) with a watch of its own, so
// several informers can list the same pods.
func Of(list *corev1.PodList) *PodLW { return &PodLW{list: list, ready: make(chan struct{})} }

// Pods returns the fixed list.
func (lw *PodLW) Pods() *corev1.PodList { return lw.list }

// IsWatchListSemanticsUnSupported keeps the reflector on LIST + WATCH.
func (lw *PodLW) IsWatchListSemanticsUnSupported() bool { return true }

// List implements the List half of cache.ListerWatcher.
func (lw *PodLW) List(metav1.ListOptions) (runtime.Object, error) { return lw.list, nil }

// Watch opens the one watch Push fills.
func (lw *PodLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.watch == nil {
		lw.watch = watch.NewFakeWithChanSize(1024, false)
		close(lw.ready)
	}
	return lw.watch, nil
}

// Push sends events modifying the listed pods in turn, each with a new
// resourceVersion, so every handler gets every one as an update. It waits
// for the watch to open.
func (lw *PodLW) Push(events int) {
	<-lw.ready
	n := len(lw.list.Items)
	for i := range events {
		p := lw.list.Items[i%n].DeepCopy()
		p.ResourceVersion = strconv.Itoa(n + i + 1)
		lw.watch.Modify(p)
	}
}

// Counter is a handler that counts adds and updates; Done closes when the
// count reaches the number it was made for.
type Counter struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

// NewCounter waits for want callbacks.
func NewCounter(want int) *Counter {
	return &Counter{want: int64(want), done: make(chan struct{})}
}

// Done closes once every expected callback has returned.
func (h *Counter) Done() <-chan struct{} { return h.done }

func (h *Counter) hit() {
	if h.n.Add(1) == h.want {
		close(h.done)
	}
}

// OnAdd counts.
func (h *Counter) OnAdd(any, bool) { h.hit() }

// OnUpdate counts.
func (h *Counter) OnUpdate(_, _ any) { h.hit() }

// OnDelete does not count: the workloads only add and update.
func (h *Counter) OnDelete(any) {}
