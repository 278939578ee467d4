package attach

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	agentserve "github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/engineserve"
)

// fixture is a real agent endpoint (agent/serve, as engineserve serves
// informtop's engine) over one engine informer of pods on the simulated
// API server, with a listener named "slow".
type fixture struct {
	cluster *cluster.Cluster
	inf     *engine.Informer
	ring    *instr.Ring
	handler http.Handler
}

// newAgent builds the fixture; run starts the informer (stopped at the
// end of the test).
func newAgent(t *testing.T, pods, ringSize int, opts agentserve.Options, run bool) *fixture {
	t.Helper()
	c := cluster.New(cluster.Options{Seed: 7})
	if err := c.Populate(cluster.Pods, pods); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	ring := instr.NewRing(ringSize)
	inf := engine.NewSharedIndexInformerWithOptions(lw.(cache.ListerWatcher), example, engine.Options{
		Name: "pods", Resource: "pods",
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: engine.Instrumentation{Events: ring},
	})
	if _, err := inf.AddNamedEventHandler("slow", cache.ResourceEventHandlerFuncs{}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := engineserve.NewHandler(opts, inf)
	if err != nil {
		t.Fatal(err)
	}
	if run {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
	}
	return &fixture{cluster: c, inf: inf, ring: ring, handler: h}
}

// server is an HTTP server that can be stopped and started again on the
// same address.
type server struct {
	t    *testing.T
	addr string
	ts   *httptest.Server
}

func serve(t *testing.T, h http.Handler) *server {
	t.Helper()
	s := &server{t: t}
	s.ts = httptest.NewServer(h)
	s.addr = s.ts.Listener.Addr().String()
	t.Cleanup(s.stop)
	return s
}

func (s *server) stop() {
	if s.ts != nil {
		s.ts.Close()
		s.ts = nil
	}
}

// restart serves h on the old address again.
func (s *server) restart(h http.Handler) {
	s.t.Helper()
	s.stop()
	var l net.Listener
	var err error
	waitfor.Until(s.t, "the port to be free again", func() bool { // it may linger for a moment
		l, err = net.Listen("tcp", s.addr)
		return err == nil
	}, func() string { return err.Error() })
	s.ts = httptest.NewUnstartedServer(h)
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
}

// newSource returns a Source for addr with a fast poll and a short
// backoff, so that tests of reconnecting take a fraction of a second.
func newSource(t *testing.T, addr string, opts Options) *Source {
	t.Helper()
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	s, err := New(addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.lo, s.hi = 100*time.Millisecond, 400*time.Millisecond
	return s
}

// run runs s until the end of the test.
func run(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func waitSynced(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
}

func contains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s %q lacks %q", what, got, w)
		}
	}
}
