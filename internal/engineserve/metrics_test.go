package engineserve

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
)

func TestMetricsMatchTheSnapshot(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider, err := NewMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	id, err := cache.NewInformerName("agent-metrics-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(id.Release)
	f := newFixture(t, 1024, engine.Options{Identifier: id.WithResource(gvr), MetricsProvider: provider})
	// No Options.Resources: the labels' group and version come from the identifier.
	srv := server(t, serve.Options{Registry: reg}, f.pods, f.secrets)
	// The informer dates pending notifications on its once-a-second upkeep.
	waitfor.True(t, "the blocked listener's notifications to be dated", func() bool {
		return !f.pods.Snapshot().Listeners[0].OldestPendingSince.IsZero()
	})

	status, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	mfs := servetest.Scrape(t, body)
	snap := f.pods.Snapshot()
	pods := map[string]string{"name": "pods", "group": "", "version": "v1", "resource": "pods"}
	blocked := map[string]string{"name": "pods", "version": "v1", "resource": "pods", "listener": "blocked"}
	secrets := map[string]string{"name": "secrets", "group": "", "version": "", "resource": "secrets"}
	l := snap.Listeners[0]

	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"informtop_listener_pending_notifications", blocked, float64(l.Pending)},
		{"informtop_listener_buffer_capacity", blocked, float64(l.Capacity)},
		{"informtop_listener_synced", blocked, 0},
		{"informtop_listener_panics_total", blocked, 0},
		{"informtop_listener_delivered_total", with(blocked, "type", "add"), float64(l.Delivered.Add)},
		{"informtop_listener_delivered_total", with(blocked, "type", "update"), 0},
		{"informtop_listener_delivered_total", with(blocked, "type", "delete"), 0},
		{"informtop_listener_delivered_total", with(blocked, "type", "sync"), 0},
		{"informtop_informer_synced", pods, 1},
		{"informtop_informer_queued_items", pods, float64(snap.Queue.Depth)},
		{"informtop_informer_oldest_queued_item_age_seconds", pods, 0},
		{"informtop_reflector_lists_total", pods, float64(snap.Reflector.Lists)},
		{"informtop_reflector_list_pages_total", pods, float64(snap.Reflector.ListPages)},
		{"informtop_reflector_watches_total", pods, float64(snap.Reflector.Watches)},
		{"informtop_reflector_relists_total", pods, float64(snap.Reflector.Relists)},
		{"informtop_reflector_errors_total", pods, float64(snap.Reflector.Errors)},
		{"informtop_informer_store_objects", pods, 3},
		{"informtop_informer_store_objects", secrets, 1},
		{"informtop_listener_pending_notifications", with(pods, "listener", "blocked"), 2},
	} {
		if got := servetest.Value(t, mfs, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := servetest.Value(t, mfs, "informtop_listener_callback_in_progress_seconds", blocked); got <= 0 {
		t.Errorf("in-progress seconds = %v, want > 0 for a blocked listener", got)
	}
	if snap.Reflector.Lists == 0 {
		t.Error("the snapshot saw no list")
	}
	// Scraped before snap was taken: behind by more than 0, by no more than at snap.
	if got, max := servetest.Value(t, mfs, "informtop_listener_oldest_pending_seconds", blocked), l.OldestPendingAge(snap.Taken).Seconds(); got <= 0 || got > max {
		t.Errorf("oldest pending = %vs, want in (0, %v] for a blocked listener", got, max)
	}
	if got := servetest.Value(t, mfs, "informtop_informer_silent", pods); got != 0 {
		t.Errorf("informtop_informer_silent = %v for a live informer", got)
	}

	// client-go's informer metrics, through the provider, named by the identifier.
	pods = map[string]string{"name": "agent-metrics-test", "group": "", "version": "v1", "resource": "pods"}
	if got := servetest.Value(t, mfs, "informer_queued_items", pods); got != 0 {
		t.Errorf("informer_queued_items = %v", got)
	}
	if got := servetest.Value(t, mfs, "informer_processing_latency_seconds", pods); got == 0 {
		t.Error("no processing latency observed")
	}
	if got := servetest.Value(t, mfs, "informer_store_resource_version", pods); got <= 0 {
		t.Errorf("informer_store_resource_version = %v", got)
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for mk, mv := range m {
		out[mk] = mv
	}
	return out
}

func TestMetricsProviderDropsReleasedIdentities(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := NewMetricsProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	name, err := cache.NewInformerName("agent-release-test")
	if err != nil {
		t.Fatal(err)
	}
	id := name.WithResource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"})
	g := p.NewQueuedItemMetric(id)
	g.Set(3)
	if n := testCount(t, reg); n != 1 {
		t.Fatalf("%d series, want 1", n)
	}
	name.Release()
	g.Set(4)
	p.NewProcessingLatencyMetric(id).Observe(1)
	if n := testCount(t, reg); n != 0 {
		t.Fatalf("%d series after release, want 0", n)
	}
}

func testCount(t *testing.T, reg *prometheus.Registry) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		n += len(mf.GetMetric())
	}
	return n
}

func TestSecondHandlerOnOneRegistrySaysWhy(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	reg := prometheus.NewRegistry()
	if _, err := NewHandler(serve.Options{Registry: reg}, inf); err != nil {
		t.Fatal(err)
	}
	if _, err := NewHandler(serve.Options{Registry: reg}, inf); err == nil {
		t.Fatal("a second collector on the same registry was accepted")
	}
}
