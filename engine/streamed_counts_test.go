package engine

import (
	"context"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// streamedListLW serves its pods the way kube-apiserver v1.37 serves an
// informer by default: the initial list streamed on a watch (WatchList),
// ended by the initial-events-end bookmark, then a watch that stays open.
type streamedListLW struct{ pods []*corev1.Pod }

func newStreamedListLW(n int) *streamedListLW {
	lw := &streamedListLW{}
	for i := range n {
		p := pod("p" + strconv.Itoa(i))
		p.ResourceVersion = strconv.Itoa(i + 1)
		lw.pods = append(lw.pods, p)
	}
	return lw
}

func (lw *streamedListLW) rv() string { return strconv.Itoa(len(lw.pods)) }

func (lw *streamedListLW) List(o metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), o)
}

func (lw *streamedListLW) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), o)
}

// ListWithContext is what the reflector falls back to when a stream
// fails; the test checks it did not.
func (lw *streamedListLW) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: lw.rv()}}
	for _, p := range lw.pods {
		list.Items = append(list.Items, *p)
	}
	return list, nil
}

func (lw *streamedListLW) WatchWithContext(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
	if o.SendInitialEvents == nil || !*o.SendInitialEvents {
		return watch.NewFake(), nil // quiet until stopped
	}
	w := watch.NewFakeWithChanSize(len(lw.pods)+1, false)
	for _, p := range lw.pods {
		w.Add(p.DeepCopy())
	}
	w.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: lw.rv(),
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
	return w, nil
}

// A streamed initial list reaches the queue as one Replace, which RealFIFO
// queues as a single ReplacedAll item; its counters still say how many
// objects went through (297 added and popped, 297 stored), the same as a
// DeltaFIFO's.
func TestStreamedListCountsEveryObject(t *testing.T) {
	const n = 297
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			inf := NewSharedIndexInformerWithOptions(newStreamedListLW(n), &corev1.Pod{}, Options{Name: "pods", Queue: kind})
			stop := runInformer(t, inf)
			defer stop()
			waitfor.True(t, "sync", inf.HasSynced)
			s := inf.Snapshot()
			if !s.Reflector.ListStreamed || s.Reflector.ListPages != 0 {
				t.Fatalf("the list did not stream: %+v", s.Reflector)
			}
			if s.Queue.Added.Replaced != n || s.Queue.Popped.Replaced != n {
				t.Fatalf("queue counted %d replaced added, %d popped; want %d each", s.Queue.Added.Replaced, s.Queue.Popped.Replaced, n)
			}
			if s.Store.Objects != n || s.Store.Adds != n || s.Store.Updates != 0 || s.Store.Deletes != 0 {
				t.Fatalf("store: %d objects, %d adds, %d updates, %d deletes; want %d objects and adds", s.Store.Objects, s.Store.Adds, s.Store.Updates, s.Store.Deletes, n)
			}
		})
	}
}
