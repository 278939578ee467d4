package instr

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The observer keeps the timeout the open watch asked the server for,
// which FreshnessOf holds the watch to; none while no watch is open.
func TestObserverRecordsTheWatchTimeout(t *testing.T) {
	fake := watch.NewFake()
	lw := &cache.ListWatch{
		ListWithContextFunc:  func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, nil },
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fake, nil },
	}
	o := NewObservedListerWatcher(lw, "pods", nil)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.SetClock(func() time.Time { return t0 })
	seconds := int64(300)
	w, err := o.Watch(metav1.ListOptions{TimeoutSeconds: &seconds})
	if err != nil {
		t.Fatal(err)
	}
	if r := o.Stats(t0); !r.WatchOpen || r.WatchTimeout != 300*time.Second || !r.WatchSince.Equal(t0) {
		t.Errorf("a watch asking for 300 s: open %t, timeout %v, since %v; want open, 5m0s, %v", r.WatchOpen, r.WatchTimeout, r.WatchSince, t0)
	}
	w.Stop()
	if r := o.Stats(t0); r.WatchOpen || r.WatchTimeout != 0 {
		t.Errorf("after the watch stopped: open %t, timeout %v; want closed, none", r.WatchOpen, r.WatchTimeout)
	}
}
