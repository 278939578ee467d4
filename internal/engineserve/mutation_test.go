package engineserve

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
)

// relabeler is a user's controller with the classic bug: its handler
// labels the cached pod instead of a DeepCopy.
type relabeler struct{}

func (*relabeler) onAdd(obj any) {
	p := obj.(*corev1.Pod)
	if p.Name == "b" {
		p.Labels = map[string]string{"app": "web", "touched": "yes"}
	}
}

// A controller run with mutation attribution shows the offending handler by
// its own function name through the agent: the count on /metrics and, in
// the frame `informtop attach` reads, the count, the last change with its
// fields and the CacheMutation event.
func TestAgentCarriesCacheMutations(t *testing.T) {
	src := newTestSource(t, pod("a"), pod("b"), pod("c"))
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods", Resource: "pods",
		Instrumentation: engine.Instrumentation{MutationAttribution: true, NoUpkeep: true}})
	c := &relabeler{}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: c.onAdd})
	if err != nil {
		t.Fatal(err)
	}
	// The agent, built before the informer runs, lists changed fields with secret values hidden.
	srv := server(t, serve.Options{Name: "my-controller"}, inf)
	startInformer(t, inf)
	waitfor.True(t, "the handler to sync", reg.HasSynced)
	// The change is compared after the callback returns, which may be just
	// after the registration counts as synced.
	waitfor.True(t, "the change to be found", func() bool {
		ls := inf.Snapshot().Listeners
		return len(ls) == 1 && ls[0].CacheMutations > 0
	})
	const name = "github.com/informtop/informtop/internal/engineserve.(*relabeler)"
	const field = `metadata.labels.touched: "" → "yes"`

	status, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	mfs := servetest.Scrape(t, body)
	if got := servetest.Value(t, mfs, "informtop_listener_cache_mutations_total", map[string]string{"name": "pods", "listener": name}); got != 1 {
		t.Errorf("informtop_listener_cache_mutations_total = %v, want 1", got)
	}

	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	l := fr.Snapshots[0].Listeners[0]
	if l.Name != name || l.CacheMutations != 1 || l.LastCacheMutation == nil || l.LastCacheMutation.Key != "default/b" ||
		!slices.Equal(l.LastCacheMutation.Fields, []string{field}) {
		t.Errorf("frame listener %q: %d mutations, last %+v; want %s, 1, default/b with %s", l.Name, l.CacheMutations, l.LastCacheMutation, name, field)
	}
	var events []string
	for _, e := range fr.Events {
		if e.Type == source.EventCacheMutation {
			events = append(events, e.Listener+" "+e.Key+" "+e.Detail)
		}
	}
	if len(events) != 1 || !strings.HasPrefix(events[0], name+" default/b OnAdd") || !strings.HasSuffix(events[0], field) {
		t.Errorf("frame's cache mutation events %q", events)
	}
}
