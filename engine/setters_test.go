package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// SetTransform's function is applied before objects are cached and handed
// to handlers, for both queue kinds; after Run it is refused.
func TestInformerSetTransform(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			p := pod("a")
			p.Annotations = map[string]string{"big": strings.Repeat("x", 100)}
			src.Add(p)
			inf := newTestInformer(src, kind, 0)
			if err := inf.SetTransform(func(obj any) (any, error) {
				if p, ok := obj.(*corev1.Pod); ok {
					p = p.DeepCopy()
					p.Annotations = nil
					return p, nil
				}
				return obj, nil
			}); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			obj, ok, _ := inf.GetStore().GetByKey("default/a")
			if !ok || obj.(*corev1.Pod).Annotations != nil {
				t.Fatalf("cached object was not transformed: %+v", obj)
			}
			if err := inf.SetTransform(nil); err == nil {
				t.Fatal("SetTransform after Run succeeded")
			}
		})
	}
}

// failingLW fails every LIST until told otherwise.
type failingLW struct {
	fail atomic.Bool
}

func (*failingLW) IsWatchListSemanticsUnSupported() bool { return true }

func (lw *failingLW) List(metav1.ListOptions) (runtime.Object, error) {
	if lw.fail.Load() {
		return nil, errors.New("connection refused")
	}
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}}, nil
}

func (*failingLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// The user's watch error handler hears of list failures, the observer
// counts them, and the handler cannot be set after Run.
func TestInformerWatchErrorHandler(t *testing.T) {
	lw := &failingLW{}
	lw.fail.Store(true)
	inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Name: "pods"})
	var seen atomic.Int32
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) {
		if r != nil && strings.Contains(err.Error(), "connection refused") {
			seen.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "the handler to hear of the failure", func() bool { return seen.Load() > 0 })
	r := inf.Snapshot().Reflector
	if r.Errors == 0 || !strings.Contains(r.LastError, "connection refused") {
		t.Fatalf("reflector stats: %+v", r)
	}
	if err := inf.SetWatchErrorHandler(func(*cache.Reflector, error) {}); err == nil {
		t.Fatal("SetWatchErrorHandler after Run succeeded")
	}
	lw.fail.Store(false)
	waitfor.True(t, "sync after the API server came back", inf.HasSynced)
	if rv := inf.LastSyncResourceVersion(); rv != "7" {
		t.Fatalf("LastSyncResourceVersion = %q, want 7", rv)
	}
	if c := inf.GetController(); !c.HasSynced() || c.LastSyncResourceVersion() != "7" {
		t.Fatal("GetController does not reflect the informer")
	}
}

// AddIndexers on a running informer indexes what is already cached.
func TestInformerAddIndexersAfterStart(t *testing.T) {
	src := newTestSource(t)
	for _, n := range []string{"a", "b"} {
		p := pod(n)
		p.Labels = map[string]string{"app": "web"}
		src.Add(p)
	}
	inf := newTestInformer(src, RealFIFO, 0)
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	byApp := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Labels["app"]}, nil }
	if err := inf.AddIndexers(cache.Indexers{"app": byApp}); err != nil {
		t.Fatal(err)
	}
	keys, err := inf.GetIndexer().IndexKeys("app", "web")
	if err != nil || !slices.Equal(keys, []string{"default/a", "default/b"}) {
		t.Fatalf("IndexKeys = %v, %v", keys, err)
	}
	if n := inf.Snapshot().Store.Indexes["app"]; n != 1 {
		t.Fatalf("snapshot index values = %d, want 1", n)
	}
}
