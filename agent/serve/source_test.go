package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// engineless is a source with no engine at all: two informers, widgets
// with a cache and gadgets without one, two events and a workqueue.
func engineless() *sourcetest.Fake {
	taken := time.Unix(1000, 0)
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	return sourcetest.New(sourcetest.Config{
		Kind: "fake", Title: "no engine",
		Frames: [][]source.Informer{{
			{Name: "widgets", Resource: "widgets", Synced: true, Started: true, Taken: taken,
				Store:     source.Cache{Objects: 2, Generation: 4},
				Reflector: source.Reflector{Lists: 1, Watches: 2},
				Listeners: []source.Listener{{Name: "audit", Pending: 3, Synced: true, Delivered: source.Delivered{Add: 5}}}},
			{Name: "gadgets", Resource: "gadgets", Taken: taken},
		}},
		Events: []source.Event{
			{Seq: 1, Type: source.EventListDone, Informer: "widgets", Detail: "7"},
			{Seq: 2, Type: source.EventPop, Informer: "widgets", Key: "ns/a"},
		},
		Workqueues: []source.Workqueue{{Name: "widgets-controller", Depth: 6, Adds: 9}},
		Stores: map[string]source.StoreReader{"widgets": sourcetest.NewStore(4,
			sourcetest.Item{Key: "ns/a", Object: cm("a", "6"), Indexes: map[string][]string{"namespace": {"ns"}}},
			sourcetest.Item{Key: "ns/b", Object: cm("b", "7"), Indexes: map[string][]string{"namespace": {"ns"}}})},
	})
}

func sourceServer(t *testing.T, src source.Source, opts Options) *httptest.Server {
	t.Helper()
	h, err := NewSourceHandler(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// The generic handler serves a source with no engine: frames, reports,
// metrics with NewHandler's names and labels, and the store endpoints,
// all read through the source.
func TestSourceHandlerServesASourceWithoutAnEngine(t *testing.T) {
	srv := sourceServer(t, engineless(), Options{Name: "ctrl",
		Resources: map[string]schema.GroupVersionResource{"gadgets": {Group: "example.com", Version: "v1", Resource: "gadgets"}}})

	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame+"?cursor=2", &fr)
	if fr.Version != api.Version || fr.Source != "ctrl" || len(fr.Snapshots) != 2 || fr.Snapshots[0].Listeners[0].Pending != 3 {
		t.Errorf("frame %+v", fr)
	}
	if len(fr.Events) != 1 || fr.Events[0].Key != "ns/a" || fr.Next != 3 || len(fr.Workqueues) != 1 || fr.Taken.IsZero() {
		t.Errorf("frame events %+v, next %d, workqueues %+v", fr.Events, fr.Next, fr.Workqueues)
	}
	servetest.GetJSON(t, srv, api.PathFrame+"?max=1", &fr)
	if len(fr.Events) != 1 || fr.Events[0].Seq != 1 || fr.Next != 2 {
		t.Errorf("max=1: events %+v, next %d", fr.Events, fr.Next)
	}

	var r report.Report
	servetest.GetJSON(t, srv, api.PathReport, &r)
	if r.Source != "agent" || len(r.Informers) != 2 || r.Informers[0].Name != "widgets" || len(r.Workqueues) != 1 {
		t.Errorf("report %+v", r)
	}

	_, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
	mfs := servetest.Scrape(t, body)
	widgets := map[string]string{"name": "widgets", "group": "", "version": "", "resource": "widgets"}
	if v := servetest.Value(t, mfs, "informtop_informer_store_objects", widgets); v != 2 {
		t.Errorf("informtop_informer_store_objects = %v, want 2", v)
	}
	if v := servetest.Value(t, mfs, "informtop_listener_delivered_total", with(with(widgets, "listener", "audit"), "type", "add")); v != 5 {
		t.Errorf("delivered adds = %v, want 5", v)
	}
	gadgets := map[string]string{"name": "gadgets", "group": "example.com", "version": "v1", "resource": "gadgets"}
	if v := servetest.Value(t, mfs, "informtop_informer_synced", gadgets); v != 0 {
		t.Errorf("gadgets synced = %v, want 0, labelled by Options.Resources", v)
	}
	if v := servetest.Value(t, mfs, "informtop_workqueue_depth", map[string]string{"name": "widgets-controller"}); v != 6 {
		t.Errorf("workqueue depth = %v, want 6", v)
	}

	var entries api.StoreEntries
	servetest.GetJSON(t, srv, api.PathEntries+"?informer=widgets", &entries)
	if entries.Generation != 4 || len(entries.Entries) != 2 || entries.Entries[1].Key != "ns/b" {
		t.Errorf("entries %+v", entries)
	}
	var gen api.StoreGeneration
	if servetest.GetJSON(t, srv, api.PathGeneration+"?informer=widgets", &gen); gen.Generation != 4 {
		t.Errorf("generation %d, want 4", gen.Generation)
	}
	var obj source.Object
	if servetest.GetJSON(t, srv, api.PathObject+"?informer=widgets&key=ns/b", &obj); obj.ResourceVersion != "7" || !strings.Contains(obj.YAML, "name: b") {
		t.Errorf("object %+v", obj)
	}
	var idx api.StoreIndex
	if servetest.GetJSON(t, srv, api.PathIndex+"?informer=widgets&index=namespace&value=ns", &idx); len(idx.Items) != 2 {
		t.Errorf("index keys %v, want both", idx.Items)
	}
	for path, want := range map[string]string{
		api.PathEntries + "?informer=nodes":               `serves no informer named "nodes"; it serves gadgets, widgets`,
		api.PathEntries + "?informer=gadgets":             "does not serve the cache of informer gadgets",
		api.PathObject + "?informer=widgets&key=ns/nope":  `informer widgets has no object "ns/nope" cached`,
		api.PathCut + "?informer=widgets":                 "cannot cut informer caches",
		api.PathGeneration + "?informer=gadgets":          "does not serve the cache of informer gadgets",
		api.PathIndex + "?informer=nodes&index=namespace": `serves no informer named "nodes"`,
	} {
		status, body := servetest.Get(t, srv, http.MethodGet, path, "")
		if status != http.StatusNotFound || !strings.Contains(errorSentence(t, body), want) {
			t.Errorf("GET %s: %d %s, want 404 saying %q", path, status, body, want)
		}
	}
}

// cutter cuts widgets, has not received gadgets' list yet and knows no
// other informer.
type cutter struct{}

func (cutter) Cut(_ context.Context, informer string) (verify.Cut, error) {
	switch informer {
	case "widgets":
		return verify.Cut{ResourceVersion: "7", Objects: map[string]string{"ns/a": "6", "ns/b": "7"}}, nil
	case "gadgets":
		return verify.Cut{}, fmt.Errorf("informer gadgets: %w", source.ErrNothingReceived)
	}
	return verify.Cut{}, source.NoInformer(informer)
}

// Cuts come from the source's Controls: a cut, 409 before the first list,
// 404 for an informer the source does not have.
func TestSourceHandlerCutsThroughTheSourcesCuts(t *testing.T) {
	src := source.Decorate(engineless(), source.Decoration{Controls: func(c source.Controls) source.Controls {
		c.Cuts = cutter{}
		return c
	}})
	srv := sourceServer(t, src, Options{})
	var c api.Cut
	servetest.GetJSON(t, srv, api.PathCut+"?informer=widgets&keys=true", &c)
	if c.ResourceVersion != "7" || c.Objects != 2 || len(c.Entries) != 2 || c.Digest != cutOf(verify.Cut{Objects: map[string]string{"ns/a": "6", "ns/b": "7"}}, false).Digest {
		t.Errorf("cut %+v", c)
	}
	for path, want := range map[string]struct {
		status   int
		sentence string
	}{
		api.PathCut + "?informer=gadgets": {http.StatusConflict, "informer gadgets has not received its first list yet"},
		api.PathCut + "?informer=nodes":   {http.StatusNotFound, `serves no informer named "nodes"; it serves gadgets, widgets`},
		api.PathCut:                       {http.StatusBadRequest, "the query parameter informer is required"},
	} {
		status, body := servetest.Get(t, srv, http.MethodGet, path, "")
		if status != want.status || !strings.Contains(errorSentence(t, body), want.sentence) {
			t.Errorf("GET %s: %d %s, want %d saying %q", path, status, body, want.status, want.sentence)
		}
	}
}

// NewSourceHandler refuses no source at all with a sentence.
func TestSourceHandlerRefusesNoSource(t *testing.T) {
	if _, err := NewSourceHandler(nil, Options{}); err == nil || !strings.HasPrefix(err.Error(), "agent: ") {
		t.Errorf("no source: %v, want a sentence", err)
	}
}

// with is labels plus k=v.
func with(labels map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for lk, lv := range labels {
		out[lk] = lv
	}
	return out
}
