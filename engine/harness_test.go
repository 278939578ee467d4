package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// testSource is client-go's fake controller source, declared unable to
// stream initial lists so the reflector LISTs at once, as it would against
// an API server without WatchList.
type testSource struct {
	*fcache.FakeControllerSource
}

func (testSource) IsWatchListSemanticsUnSupported() bool { return true }

// newTestSource returns a source shut down when the test ends (after the
// informers it feeds, which were started later and so stop first).
func newTestSource(t *testing.T) testSource {
	src := testSource{fcache.NewFakeControllerSource()}
	t.Cleanup(src.Shutdown)
	return src
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
}

// call is one recorded handler callback.
type call struct {
	Kind    string // add, update, delete
	Key     string
	Initial bool   // OnAdd's isInInitialList
	OldRV   string // OnUpdate's old object's resourceVersion
	RV      string // the (new) object's resourceVersion
	Tomb    bool   // OnDelete got a DeletedFinalStateUnknown
}

func (c call) String() string {
	switch c.Kind {
	case "add":
		return fmt.Sprintf("add %s@%s initial=%t", c.Key, c.RV, c.Initial)
	case "update":
		return fmt.Sprintf("update %s %s->%s", c.Key, c.OldRV, c.RV)
	}
	return fmt.Sprintf("delete %s@%s tomb=%t", c.Key, c.RV, c.Tomb)
}

// recorder is a handler that records every callback; block, when set,
// makes each callback wait until the channel is closed.
type recorder struct {
	mu    sync.Mutex
	calls []call
	block chan struct{}
	// onCall, when set, runs inside every callback (after recording).
	onCall func(call)
}

func rv(obj any) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if o, ok := obj.(metav1.Object); ok {
		return o.GetResourceVersion()
	}
	return ""
}

func keyOf(obj any) string {
	k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	return k
}

func (r *recorder) record(c call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	block, onCall := r.block, r.onCall
	r.mu.Unlock()
	if onCall != nil {
		onCall(c)
	}
	if block != nil {
		<-block
	}
}

func (r *recorder) OnAdd(obj any, initial bool) {
	r.record(call{Kind: "add", Key: keyOf(obj), Initial: initial, RV: rv(obj)})
}

func (r *recorder) OnUpdate(old, obj any) {
	r.record(call{Kind: "update", Key: keyOf(obj), OldRV: rv(old), RV: rv(obj)})
}

func (r *recorder) OnDelete(obj any) {
	_, tomb := obj.(cache.DeletedFinalStateUnknown)
	r.record(call{Kind: "delete", Key: keyOf(obj), RV: rv(obj), Tomb: tomb})
}

func (r *recorder) snapshot() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// waitDelivered waits until the handler of inf's listener i has returned
// from n calls. A recorder sees a call as it starts; the listener counts it
// once the handler returns, so a test that reads the counters or anything
// a handler writes must wait for this first.
func waitDelivered(t *testing.T, inf *Informer, i int, n uint64) {
	t.Helper()
	waitfor.True(t, fmt.Sprintf("listener %d to return from %d calls", i, n), func() bool {
		return inf.Snapshot().Listeners[i].Delivered.Total() == n
	})
}

// runInformer starts inf and returns a stop function that cancels it and
// waits for Run to return.
func runInformer(t *testing.T, inf cache.SharedIndexInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

func sortedKeys(store cache.Store) []string {
	keys := store.ListKeys()
	sort.Strings(keys)
	return keys
}

var queueKinds = []QueueKind{RealFIFO, DeltaFIFO}
