package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/benchlw"
)

type countingLW struct {
	cache.ListerWatcher
	lists atomic.Int64
}

// IsWatchListSemanticsUnSupported keeps the reflector on LIST + WATCH, as
// the wrapped fake asks.
func (c *countingLW) IsWatchListSemanticsUnSupported() bool { return true }

func (c *countingLW) List(o metav1.ListOptions) (runtime.Object, error) {
	c.lists.Add(1)
	return cache.ToListerWatcherWithContext(c.ListerWatcher).ListWithContext(context.Background(), o)
}

// TestWrapListerWatcher: a wrapper put in before Run sees what the
// reflector receives, beneath the instrumentation, which still counts it;
// after Run it is refused with a sentence.
func TestWrapListerWatcher(t *testing.T) {
	inf := NewSharedIndexInformerWithOptions(benchlw.New(3), &corev1.Pod{}, Options{Name: "pods"})
	var wrapped *countingLW
	if err := inf.WrapListerWatcher(func(lw cache.ListerWatcher) cache.ListerWatcher {
		wrapped = &countingLW{ListerWatcher: lw}
		return wrapped
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	defer wg.Wait()
	defer cancel()
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if !cache.WaitForCacheSync(wctx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}
	if n, lists := wrapped.lists.Load(), inf.Snapshot().Reflector.Lists; n != 1 || lists != 1 || len(inf.GetStore().List()) != 3 {
		t.Errorf("the wrapper saw %d lists, the instrumentation %d; %d cached", n, lists, len(inf.GetStore().List()))
	}
	err := inf.WrapListerWatcher(func(lw cache.ListerWatcher) cache.ListerWatcher { return lw })
	if err == nil || !strings.Contains(err.Error(), "before Run") {
		t.Errorf("wrapping a running informer: %v", err)
	}
}
