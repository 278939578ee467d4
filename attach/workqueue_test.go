package attach

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/demo/cluster"
)

// The agent's workqueues reach Pull: the controller's queue as its
// MetricsProvider saw it, renewed with every frame, and Pull's copy is
// the caller's own.
func TestPullCarriesTheAgentsWorkqueues(t *testing.T) {
	queues := agent.NewWorkqueueMetrics()
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployments", MetricsProvider: queues})
	t.Cleanup(q.ShutDown)
	q.Add("ns/a")
	q.Add("ns/b")

	// A client-go controller's agent: its workqueues are the stage after
	// its handlers.
	c := cluster.New(cluster.Options{Seed: 7})
	if err := c.Populate(cluster.Pods, 3); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	set := agent.NewSet()
	inf := agent.NewInformer(set)(lw.(cache.ListerWatcher), example, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	h, err := agent.NewHandler(set, agent.Options{Workqueues: queues})
	if err != nil {
		t.Fatal(err)
	}
	s := newSource(t, serve(t, h).addr, Options{})
	if got := s.Pull(0, 0).Workqueues; len(got) != 0 {
		t.Fatalf("workqueues before any frame: %+v", got)
	}
	run(t, s)
	waitfor.Until(t, "the queue in a frame", func() bool {
		w := s.Pull(0, 0).Workqueues
		return len(w) == 1 && w[0].Name == "deployments" && w[0].Depth == 2 && w[0].Adds == 2
	}, func() string { return fmt.Sprintf("%+v", s.Pull(0, 0).Workqueues) })

	key, _ := q.Get()
	time.Sleep(time.Millisecond)
	q.Done(key)
	q.AddRateLimited(key)
	// The retry comes back after the rate limiter's first delay (5ms).
	waitfor.Until(t, "the worked key and its retry in a frame", func() bool {
		w := s.Pull(0, 0).Workqueues
		return len(w) == 1 && w[0].Depth == 2 && w[0].Adds == 3 && w[0].Retries == 1 && w[0].WorkDurationMax > 0 && w[0].QueueLatencyMax > 0
	}, func() string { return fmt.Sprintf("%+v", s.Pull(0, 0).Workqueues) })

	mine := s.Pull(0, 0)
	mine.Workqueues[0].Name = "scribbled"
	if w := s.Pull(0, 0).Workqueues; w[0].Name != "deployments" {
		t.Errorf("a caller's write reached the source: %+v", w)
	}
}
