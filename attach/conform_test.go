package attach

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/instr"
	agentserve "github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/engineserve"
)

// attach over a real agent behaves as every source must: the dashboard
// cannot tell it from one running its informers in this process.
func TestAttachConforms(t *testing.T) {
	const held = 64
	fx := newItemAgent(t)
	srv := serve(t, fx.handler)
	s := newSource(t, srv.addr, Options{})
	s.events = newEventBuffer(held) // a small buffer, so losing events takes few writes
	run(t, s)
	waitfor.Until(t, "the first frame", func() bool { return len(s.Pull(0, 0).Snapshots) == 1 }, func() string { return "" })
	keys := fx.cluster.Keys(cluster.Pods)
	churn := func(t testing.TB, n int) {
		t.Helper()
		start := s.Pull(0, 0).Next
		for i := 0; ; i++ {
			if _, err := fx.cluster.Update(cluster.Pods, keys[i%len(keys)]); err != nil {
				t.Fatal(err)
			}
			// Each update is a watch event in the agent's ring; wait until
			// the poller has brought it over.
			waitfor.Until(t, "the poller to bring the update over",
				func() bool { return s.Pull(0, 0).Next > start+uint64(i) },
				func() string {
					return fmt.Sprintf("the next event is %d, want past %d", s.Pull(0, 0).Next, start+uint64(i))
				})
			if s.Pull(0, 0).Next >= start+uint64(n) {
				return
			}
		}
	}
	sourcetest.Conform(t, s, held, churn)
}

// attach is the agent's inverse for any source: an agent serving a source
// with no engine at all (agent.NewSourceHandler over a sourcetest.Fake),
// read through attach, is a source like any other. The poller is driven
// by hand (poll), so every churn is brought over before Conform looks.
func TestAttachToAnyAgentSourceConforms(t *testing.T) {
	const held = 64
	fake := sourcetest.New(sourcetest.Config{
		Kind: "fake", Title: "no engine",
		Frames: [][]source.Informer{{
			{Name: "widgets", Resource: "widgets", Synced: true, Listeners: []source.Listener{{Name: "audit", Synced: true}}},
			{Name: "gadgets", Resource: "gadgets", Synced: true},
		}},
		Stores: map[string]source.StoreReader{"widgets": sourcetest.NewStore(3,
			sourcetest.Item{Key: "ns/a", Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "5"}}})},
	})
	var seq uint64
	add := func(n int) {
		evs := make([]source.Event, n)
		for i := range evs {
			seq++
			evs[i] = source.Event{Seq: seq, Type: source.EventPop, Informer: "widgets", Key: fmt.Sprintf("ns/%d", seq)}
		}
		fake.AddEvents(evs...)
	}
	add(5)
	h, err := agentserve.NewSourceHandler(fake, agentserve.Options{Name: "fake-ctrl"})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, h)
	s := newSource(t, srv.addr, Options{})
	s.events = newEventBuffer(held)
	poll := func(t testing.TB) {
		t.Helper()
		for s.poll(t.Context()) == 0 { // 0: the agent has more right away
		}
		if st := s.Status(); st.State != source.Live {
			t.Fatalf("attach is not live after a poll: %+v", st)
		}
	}
	poll(t)
	churn := func(t testing.TB, n int) {
		t.Helper()
		add(n)
		poll(t)
	}
	sourcetest.Conform(t, s, held, churn)

	if _, err := s.Cut(t.Context(), "widgets"); err == nil || !strings.Contains(err.Error(), "cannot cut informer caches") {
		t.Errorf("cutting through an agent whose source cannot: %v", err)
	}
	if sr := s.Store("widgets"); sr == nil {
		t.Error("no store for widgets")
	} else if o, ok := sr.Object("ns/a"); !ok || o.ResourceVersion != "5" {
		t.Errorf("object ns/a through attach: %+v, %v", o, ok)
	}
}

// newItemAgent is newAgent's fixture with an event per item, so every
// write the test makes reaches the agent's ring.
func newItemAgent(t *testing.T) *fixture {
	t.Helper()
	c := cluster.New(cluster.Options{Seed: 7})
	if err := c.Populate(cluster.Pods, 8); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	ring := instr.NewRing(1024)
	inf := engine.NewSharedIndexInformerWithOptions(lw.(cache.ListerWatcher), example, engine.Options{
		Name: "pods", Resource: "pods",
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: engine.Instrumentation{Events: ring, ItemEvents: true},
	})
	if _, err := inf.AddNamedEventHandler("slow", cache.ResourceEventHandlerFuncs{}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := engineserve.NewHandler(agentserve.Options{}, inf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &fixture{cluster: c, inf: inf, ring: ring, handler: h}
}

// attach over an agent serving client-go's own informer (agent.NewInformer,
// no engine) is a source like any other.
func TestAttachToClientGoInformerConforms(t *testing.T) {
	c := cluster.New(cluster.Options{Seed: 7})
	if err := c.Populate(cluster.Pods, 8); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	set := agent.NewSet()
	inf := agent.NewInformer(set)(lw.(cache.ListerWatcher), example, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	h, err := agent.NewHandler(set, agent.Options{Name: "client-go-ctrl"})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, h)
	s := newSource(t, srv.addr, Options{})
	run(t, s)
	waitfor.Until(t, "the informer synced through attach", func() bool {
		f := s.Pull(0, 0)
		return len(f.Snapshots) == 1 && f.Snapshots[0].Synced && f.Snapshots[0].Store.Objects == 8
	}, func() string { return fmt.Sprintf("%+v", s.Pull(0, 0).Snapshots) })
	if impl := s.Pull(0, 0).Snapshots[0].Implementation; impl != source.ImplementationClientGo {
		t.Errorf("the informer is %q's through attach; want client-go's", impl)
	}
	sourcetest.Conform(t, s, 0, nil)
}
