package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// eventually bounds every wait in these tests: far above what any step
// needs, so hitting it means a hang, never a slow machine.
const eventually = 20 * time.Second

var fixedTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func fakeClock() *clocktesting.FakePassiveClock { return clocktesting.NewFakePassiveClock(fixedTime) }

func mustLW(t testing.TB, c *Cluster, resource string, sel Selector) *ListerWatcher {
	t.Helper()
	lw, err := c.ListerWatcher(resource, sel)
	if err != nil {
		t.Fatalf("ListerWatcher(%q, %+v): %v", resource, sel, err)
	}
	return lw.(*ListerWatcher)
}

func mustList(t testing.TB, lw *ListerWatcher, opts metav1.ListOptions) (items []runtime.Object, lm metav1.ListInterface) {
	t.Helper()
	list, err := lw.List(opts)
	if err != nil {
		t.Fatalf("List(%+v): %v", opts, err)
	}
	items, err = meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	lm, err = meta.ListAccessor(list)
	if err != nil {
		t.Fatal(err)
	}
	return items, lm
}

func mustWatch(t testing.TB, lw *ListerWatcher, opts metav1.ListOptions) watch.Interface {
	t.Helper()
	w, err := lw.Watch(opts)
	if err != nil {
		t.Fatalf("Watch(%+v): %v", opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// next reads one event; the stream must deliver it and stay open.
func next(t testing.TB, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(eventually):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// nextNonBookmark skips bookmarks.
func nextNonBookmark(t testing.TB, w watch.Interface) watch.Event {
	t.Helper()
	for {
		if ev := next(t, w); ev.Type != watch.Bookmark {
			return ev
		}
	}
}

// untilClosed reads every remaining event until the server closes the stream.
func untilClosed(t testing.TB, w watch.Interface) []watch.Event {
	t.Helper()
	var out []watch.Event
	timeout := time.After(eventually)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("watch not closed after %d events", len(out))
		}
	}
}

func keyOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return m.GetNamespace() + "/" + m.GetName()
}

func rvOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return m.GetResourceVersion()
}

// change is what a watcher must see of one write.
type change struct {
	Type watch.EventType
	Key  string
	RV   string
}

func (c change) String() string { return fmt.Sprintf("%s %s@%s", c.Type, c.Key, c.RV) }

func changeOf(ev watch.Event) change {
	return change{Type: ev.Type, Key: keyOf(ev.Object), RV: rvOf(ev.Object)}
}

func sameChanges(t testing.TB, got, want []change) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d:\n got  %v\n want %v", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %v, want %v\n got  %v\n want %v", i, got[i], want[i], got, want)
		}
	}
}

// serverRVs is the server's truth for one resource as key -> resourceVersion,
// cheap enough to poll.
func serverRVs(c *Cluster, resource string, f *filter) map[string]string {
	st, _ := c.store(resource)
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(st.objects))
	for k, o := range st.objects {
		if f == nil || f.matches(o) {
			out[k] = rvOf(o)
		}
	}
	return out
}

func storeRVs(s cache.Store) map[string]string {
	out := map[string]string{}
	for _, o := range s.List() {
		obj := o.(runtime.Object)
		out[keyOf(obj)] = rvOf(obj)
	}
	return out
}

// rvDiff describes how two key -> resourceVersion maps differ ("" if equal).
func rvDiff(got, want map[string]string) string {
	var d []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			d = append(d, "missing "+k)
		} else if g != v {
			d = append(d, fmt.Sprintf("%s at %s, want %s", k, g, v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, "extra "+k)
		}
	}
	sort.Strings(d)
	if len(d) > 10 {
		d = append(d[:10], fmt.Sprintf("... %d more", len(d)-10))
	}
	return strings.Join(d, "; ")
}

// waitConverged waits until the store holds exactly the server's objects
// (those f selects), then checks them field by field.
func waitConverged(t testing.TB, c *Cluster, resource string, s cache.Store, f *filter) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, eventually, true,
		func(context.Context) (bool, error) { return rvDiff(storeRVs(s), serverRVs(c, resource, f)) == "", nil })
	if err != nil {
		t.Fatalf("%s: store did not converge: %s", resource, rvDiff(storeRVs(s), serverRVs(c, resource, f)))
	}
	for key, want := range c.Snapshot(resource) {
		if f != nil && !f.matches(want) {
			continue
		}
		got, ok, _ := s.GetByKey(key)
		if !ok || !apiequality.Semantic.DeepEqual(got, want) {
			t.Fatalf("%s: stored %s differs from the server's:\n got  %#v\n want %#v", resource, key, got, want)
		}
	}
}

// fastBackoff keeps reflector retries in tests to milliseconds; the
// default backoff (0.8s doubling to 30s) would make fault tests slow.
func fastBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: 5 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: 1 << 20, Cap: 50 * time.Millisecond}
}

// runReflector runs client-go's real Reflector from lw into a new Store
// until the test ends.
func runReflector(t testing.TB, lw cache.ListerWatcher, example runtime.Object) (*cache.Reflector, cache.Store) {
	t.Helper()
	s := cache.NewStore(cache.MetaNamespaceKeyFunc)
	r := cache.NewReflectorWithOptions(lw, example, s, cache.ReflectorOptions{Name: t.Name(), Backoff: fastBackoff()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r, s
}

// waitSynced waits for the reflector's first successful list (or stream).
func waitSynced(t testing.TB, r *cache.Reflector) {
	t.Helper()
	waitfor.True(t, "the reflector to sync", func() bool { return r.LastSyncResourceVersion() != "" })
}

func example(t testing.TB, c *Cluster, resource string) runtime.Object {
	t.Helper()
	obj, err := c.ExampleObject(resource)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}
