package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

// fakeSource is client-go's fake controller source, unable to stream
// initial lists so the reflector LISTs at once.
type fakeSource struct{ *fcache.FakeControllerSource }

func (fakeSource) IsWatchListSemanticsUnSupported() bool { return true }

func newFakeSource(t *testing.T) fakeSource {
	src := fakeSource{fcache.NewFakeControllerSource()}
	t.Cleanup(src.Shutdown)
	return src
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: labels}}
}

// runInformer runs inf until the test ends and waits for it to sync.
func runInformer(t *testing.T, inf cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
}

// agentFrames serves the set's informers and returns a function reading
// one frame.
func agentFrames(t *testing.T, set *agent.Set) func() api.Frame {
	t.Helper()
	h, err := agent.NewHandler(set, agent.Options{Registry: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return func() api.Frame {
		t.Helper()
		resp, err := http.Get(srv.URL + api.PathFrame)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var f api.Frame
		if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
			t.Fatal(err)
		}
		return f
	}
}

// frameWhen reads frames until one meets cond, and returns it.
func frameWhen(t *testing.T, what string, read func() api.Frame, cond func(api.Frame) bool) api.Frame {
	t.Helper()
	var f api.Frame
	waitfor.Until(t, what, func() bool { f = read(); return cond(f) },
		func() string { return fmt.Sprintf("the last frame's informers: %+v", f.Snapshots) })
	return f
}

// holdUntil is the user's code a handler gets stuck in.
func holdUntil(release <-chan struct{}) { <-release }

func listenerOf(f api.Frame) (source.Listener, bool) {
	if len(f.Snapshots) != 1 || len(f.Snapshots[0].Listeners) != 1 {
		return source.Listener{}, false
	}
	return f.Snapshots[0].Listeners[0], true
}

// A handler of client-go's own informer stuck in a call: the agent names
// the function and line it is stuck in, the object, and the backlog
// behind it, and logs Stalled, then Recovered with the call's duration.
func TestClientGoInformerNamesTheStuckCode(t *testing.T) {
	src := newFakeSource(t)
	set := agent.NewSet()
	inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if obj.(*corev1.ConfigMap).Labels["hold"] == "yes" {
				holdUntil(release)
			}
		},
	}); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	frames := agentFrames(t, set)

	src.Add(configMap("held", map[string]string{"hold": "yes"}))
	for i := range 3 {
		src.Add(configMap(fmt.Sprintf("behind-%d", i), nil))
	}
	f := frameWhen(t, "the stalled call's frame", frames, func(f api.Frame) bool {
		l, ok := listenerOf(f)
		return ok && l.Frame != nil && l.Pending == 3
	})
	snap := f.Snapshots[0]
	if snap.Implementation != source.ImplementationClientGo || snap.Name != "configmaps" {
		t.Errorf("informer %q of %q; want configmaps of client-go", snap.Name, snap.Implementation)
	}
	l, _ := listenerOf(f)
	if want := "github.com/informtop/informtop/agent_test.holdUntil"; l.Frame.Function != want || filepath.Base(l.Frame.File) != "clientgo_test.go" || l.Frame.Line == 0 {
		t.Errorf("stuck frame %+v; want %s in clientgo_test.go", *l.Frame, want)
	}
	if l.InCallback != source.CallbackAdd || l.InCallbackKey != "shop/held" || l.InCallbackSince.IsZero() {
		t.Errorf("in %s of %q since %v; want OnAdd of shop/held", l.InCallback, l.InCallbackKey, l.InCallbackSince)
	}
	if !l.PendingEstimated {
		t.Error("client-go's backlog is counted from outside, but the listener does not say its pending figure is a lower bound")
	}
	stalled := eventOf(f.Events, source.EventStalled)
	if stalled == nil || stalled.Key != "shop/held" || !strings.Contains(stalled.Frame, "holdUntil (clientgo_test.go:") || stalled.Duration < source.StallAfter {
		t.Errorf("Stalled event %+v; want shop/held in holdUntil, after more than %v", stalled, source.StallAfter)
	}

	once.Do(func() { close(release) })
	f = frameWhen(t, "the Recovered event", frames, func(f api.Frame) bool {
		l, ok := listenerOf(f)
		return ok && eventOf(f.Events, source.EventRecovered) != nil && l.InCallback == "" && l.Pending == 0
	})
	rec := eventOf(f.Events, source.EventRecovered)
	if rec.Key != "shop/held" || rec.Duration < source.StallAfter || !strings.Contains(rec.Frame, "holdUntil") {
		t.Errorf("Recovered event %+v; want shop/held, its duration over %v and its frame", rec, source.StallAfter)
	}
	l, _ = listenerOf(f)
	if l.Frame != nil || l.Delivered.Add != 4 {
		t.Errorf("after the release: frame %v, %d adds; want no frame and 4 adds", l.Frame, l.Delivered.Add)
	}
}

func eventOf(evs []source.Event, t source.EventType) *source.Event {
	for i := range evs {
		if evs[i].Type == t {
			return &evs[i]
		}
	}
	return nil
}

// callLog records, per key, the callbacks a handler received.
type callLog struct {
	mu    sync.Mutex
	calls map[string][]string
	total int
}

func (c *callLog) record(kind string, obj any) {
	key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = make(map[string][]string)
	}
	c.calls[key] = append(c.calls[key], kind)
	c.total++
}

func (c *callLog) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { c.record(fmt.Sprintf("add(initial=%t)", initial), obj) },
		UpdateFunc: func(_, obj any) { c.record("update", obj) },
		DeleteFunc: func(obj any) { c.record("delete", obj) },
	}
}

func (c *callLog) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Instrumentation changes nothing a handler receives: the same changes
// through client-go's bare informer and through the agent's give every
// key the same callbacks, a handler added after the start included.
func TestClientGoInformerDeliversAsTheBareOne(t *testing.T) {
	bareSrc, ourSrc := newFakeSource(t), newFakeSource(t)
	bare := cache.NewSharedIndexInformer(bareSrc, &corev1.ConfigMap{}, 0, cache.Indexers{})
	ours := agent.NewInformer(agent.NewSet())(ourSrc, &corev1.ConfigMap{}, 0, cache.Indexers{})
	var bareLog, ourLog, bareLate, ourLate callLog
	for _, c := range []struct {
		inf cache.SharedIndexInformer
		log *callLog
	}{{bare, &bareLog}, {ours, &ourLog}} {
		if _, err := c.inf.AddEventHandler(c.log.handler()); err != nil {
			t.Fatal(err)
		}
	}
	apply := func(f func(src fakeSource)) { f(bareSrc); f(ourSrc) }
	apply(func(s fakeSource) {
		for i := range 5 {
			s.Add(configMap(fmt.Sprintf("cm-%d", i), nil))
		}
	})
	runInformer(t, bare)
	runInformer(t, ours)
	for _, c := range []struct {
		inf cache.SharedIndexInformer
		log *callLog
	}{{bare, &bareLate}, {ours, &ourLate}} {
		if _, err := c.inf.AddEventHandler(c.log.handler()); err != nil {
			t.Fatal(err)
		}
	}
	apply(func(s fakeSource) {
		s.Modify(configMap("cm-1", map[string]string{"v": "2"}))
		s.Delete(configMap("cm-2", nil))
		s.Add(configMap("cm-9", nil))
	})
	const wantCalls, wantLate = 8, 8 // 5 adds, an update, a delete and an add; the late one's 5 initial adds less cm-2, and the 3 changes
	waitCalls := func(c *callLog, n int) {
		t.Helper()
		waitfor.Seen(t, fmt.Sprintf("%d calls", n), func() (bool, string) {
			got := c.count()
			return got >= n, fmt.Sprintf("%d calls", got)
		})
	}
	waitCalls(&bareLog, wantCalls)
	waitCalls(&ourLog, wantCalls)
	waitCalls(&bareLate, 1)
	waitCalls(&ourLate, 1)
	// The late handlers got their initial adds at registration: wait for
	// the changes after them too.
	for _, c := range []*callLog{&bareLate, &ourLate} {
		waitfor.True(t, "a late handler to see cm-9 added", func() bool { return hasCall(c, "shop/cm-9") })
	}
	same := func(name string, a, b *callLog) {
		a.mu.Lock()
		defer a.mu.Unlock()
		b.mu.Lock()
		defer b.mu.Unlock()
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range a.calls {
				if !yield(k) {
					return
				}
			}
		})
		if len(a.calls) != len(b.calls) {
			t.Errorf("%s: %d keys through the bare informer, %d through the agent's", name, len(a.calls), len(b.calls))
		}
		for _, k := range keys {
			if !slices.Equal(a.calls[k], b.calls[k]) {
				t.Errorf("%s, key %s: bare informer %v, agent's %v", name, k, a.calls[k], b.calls[k])
			}
		}
	}
	same("handler added before the start", &bareLog, &ourLog)
	same("handler added after the start", &bareLate, &ourLate)
	_ = wantLate
}

func hasCall(c *callLog, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls[key]) > 0
}
