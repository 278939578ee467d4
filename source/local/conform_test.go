package local

import (
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
)

// The engine's adapter behaves as every source must.
func TestLocalConforms(t *testing.T) {
	const ring = 256
	c := cluster.New(cluster.Options{Seed: 5})
	if err := c.Populate(cluster.Pods, 8); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	s := New(Config{Kind: "test", Title: "test · pods", EventRingSize: ring})
	inf := engine.NewSharedIndexInformerWithOptions(lw.(cache.ListerWatcher), example, engine.Options{
		Name: "pods", Resource: "pods",
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: engine.Instrumentation{Events: s.Events(), ItemEvents: true},
	})
	if _, err := s.AddInformer("pods", "pods", engine.RealFIFO, inf); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddListener("pods", ListenerSpec{Name: "fast"}); err != nil {
		t.Fatal(err)
	}
	run(t, s)
	keys := c.Keys(cluster.Pods)
	churn := func(t testing.TB, n int) {
		t.Helper()
		before := s.Events().Stats().Emitted
		for i := 0; s.Events().Stats().Emitted < before+uint64(n); i++ {
			if _, err := c.Update(cluster.Pods, keys[i%len(keys)]); err != nil {
				t.Fatal(err)
			}
			if i > 100*n {
				t.Fatalf("%d updates made fewer than %d events", i, n)
			}
			waitForEvents(t, s, before, i)
		}
	}
	sourcetest.Conform(t, s, ring, churn)
}

// waitForEvents waits for the update just made to reach
// the event log, so churn counts what the pipeline did, not what it will.
func waitForEvents(t testing.TB, s *Source, before uint64, updates int) {
	t.Helper()
	waitfor.Until(t, fmt.Sprintf("%d updates to reach the event log", updates),
		func() bool { return s.Events().Stats().Emitted > before+uint64(updates) },
		func() string { return fmt.Sprintf("%d events emitted, %d before", s.Events().Stats().Emitted, before) })
}
