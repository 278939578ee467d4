package engine

import (
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// expiringLW lists one pod; its first watch ends with a 410 Gone ERROR
// event, as an API server says a resourceVersion was compacted away.
type expiringLW struct {
	mu      sync.Mutex
	watches []*watch.FakeWatcher
}

func (*expiringLW) IsWatchListSemanticsUnSupported() bool { return true }

func (*expiringLW) List(metav1.ListOptions) (runtime.Object, error) {
	p := pod("a")
	p.ResourceVersion = "5"
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.Pod{*p}}, nil
}

func (lw *expiringLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	w := watch.NewFakeWithChanSize(1, false)
	if len(lw.watches) == 0 {
		w.Error(&apierrors.NewResourceExpired("too old resource version: 5 (9)").ErrStatus)
	}
	lw.watches = append(lw.watches, w)
	return w, nil
}

func (lw *expiringLW) stopAll() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for _, w := range lw.watches {
		w.Stop()
	}
}

// With TapWatchStreams the 410 the reflector handles silently is counted
// and shown; the relist it causes is counted either way.
func TestObservedWatchCounts410(t *testing.T) {
	for _, tap := range []bool{true, false} {
		lw := &expiringLW{}
		inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Name: "pods", Instrumentation: Instrumentation{TapWatchStreams: tap}})
		stop := runInformer(t, inf)
		waitFor(t, "the relist after 410", func() bool { return inf.Snapshot().Reflector.Relists == 1 })
		r := inf.Snapshot().Reflector
		stop()
		lw.stopAll()
		if tap && (r.WatchErrors != 1 || !strings.Contains(r.LastError, "410 Gone") && strings.Contains(r.LastError, "too old resource version")) {
			t.Errorf("with the tap: watch errors %d, last error %q; want the 410 recorded", r.WatchErrors, r.LastError)
		}
		if !tap && r.WatchErrors != 0 {
			t.Errorf("without the tap: watch errors %d, want 0 (the stream is not inspected)", r.WatchErrors)
		}
	}
}
