package agent

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/engine"
)

// An informer added to the Set after the handler was built is served
// like one given to NewHandler: in the frame, its events, its store and
// /metrics, as controller-runtime's lazily built informers need.
func TestInformersAddedToTheSetLaterAreServed(t *testing.T) {
	early := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "early"})
	early.Events().Emit(instr.Event{Type: instr.EventControl, Informer: "early", Key: "ns/early"})
	set := NewSet()
	srv := server(t, Options{Informers: set}, early)

	var fr api.Frame
	getJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Snapshots) != 1 || len(fr.Events) != 1 || fr.Events[0].Key != "ns/early" {
		t.Fatalf("before the add: snapshots %+v, events %+v", fr.Snapshots, fr.Events)
	}
	cursor := fr.Next

	// A running informer with a ring of its own, which the feed must learn.
	late := engine.NewSharedIndexInformerWithOptions(newTestSource(t, pod("a"), pod("b")), &corev1.Pod{}, engine.Options{Name: "late", Resource: "pods"})
	startInformer(t, late)
	waitFor(t, "the late informer to sync", late.HasSynced)
	late.Events().Emit(instr.Event{Type: instr.EventControl, Informer: "late", Key: "ns/late"})
	if err := set.Add(late); err != nil {
		t.Fatal(err)
	}

	getJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, cursor), &fr)
	if len(fr.Snapshots) != 2 || fr.Snapshots[0].Name != "early" || fr.Snapshots[1].Name != "late" || !fr.Snapshots[1].Synced {
		t.Fatalf("after the add: snapshots %+v", fr.Snapshots)
	}
	sawLate := false
	for _, e := range fr.Events {
		if e.Seq < cursor {
			t.Errorf("event %d is older than the cursor %d", e.Seq, cursor)
		}
		sawLate = sawLate || e.Key == "ns/late"
	}
	if !sawLate {
		t.Errorf("the late informer's event is not in the stream: %+v", fr.Events)
	}

	// Its ring keeps being read: a later event arrives after the cursor.
	cursor = fr.Next
	late.Events().Emit(instr.Event{Type: instr.EventControl, Informer: "late", Key: "ns/later"})
	getJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, cursor), &fr)
	if len(fr.Events) != 1 || fr.Events[0].Key != "ns/later" || fr.Events[0].Seq != cursor {
		t.Errorf("resumed events = %+v, cursor %d", fr.Events, cursor)
	}

	var entries api.StoreEntries
	getJSON(t, srv, api.PathEntries+"?informer=late", &entries)
	if len(entries.Entries) != 2 {
		t.Errorf("late's entries = %+v", entries.Entries)
	}

	status, body := get(t, srv, http.MethodGet, api.PathMetrics, "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	mfs := scrape(t, body)
	if v := value(t, mfs, "informtop_store_objects", map[string]string{"name": "late", "resource": "pods"}); v != 2 {
		t.Errorf("late's store objects = %v, want 2", v)
	}
	if v := value(t, mfs, "informtop_informer_synced", map[string]string{"name": "late"}); v != 1 {
		t.Errorf("late's synced = %v, want 1", v)
	}
}

func TestSetRefusesNilAndDuplicateNames(t *testing.T) {
	inf := func(name string) *engine.Informer {
		return engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: name})
	}
	var set Set // the zero Set is usable
	if err := set.Add(nil); err == nil {
		t.Error("a nil informer was added")
	}
	if err := set.Add(inf("pods")); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(inf("pods")); err == nil || !strings.Contains(err.Error(), `"pods"`) {
		t.Errorf("a second informer named pods: %v", err)
	}

	// A handler's own informers reserve their names in its set, both ways.
	if _, err := NewHandler(Options{Informers: &set}, inf("pods")); err == nil || !strings.Contains(err.Error(), `"pods"`) {
		t.Errorf("a handler's informer named like one in its set: %v", err)
	}
	if _, err := NewHandler(Options{Informers: &set}, inf("nodes")); err != nil {
		t.Fatal(err)
	}
	if err := set.Add(inf("nodes")); err == nil || !strings.Contains(err.Error(), `"nodes"`) {
		t.Errorf("an informer named like a handler's own: %v", err)
	}
	if got := len(set.informers()); got != 1 {
		t.Errorf("the set holds %d informers after the refusals, want 1", got)
	}
}

// Adding while frames and scrapes are served: run under -race.
func TestSetGrowsWhileServed(t *testing.T) {
	set := NewSet()
	srv := server(t, Options{Informers: set})
	const n = 16
	informers := make([]*engine.Informer, n)
	for i := range informers {
		informers[i] = engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: fmt.Sprintf("inf-%d", i)})
		informers[i].Events().Emit(instr.Event{Type: instr.EventControl, Informer: informers[i].Name(), Key: "ns/x"})
	}
	var wg sync.WaitGroup
	for _, inf := range informers {
		wg.Go(func() {
			if err := set.Add(inf); err != nil {
				t.Error(err)
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 10 {
				for _, path := range []string{api.PathFrame, api.PathMetrics} {
					resp, err := srv.Client().Get(srv.URL + path)
					if err != nil {
						t.Error(err)
						return
					}
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Errorf("GET %s: %s", path, resp.Status)
					}
				}
			}
		})
	}
	wg.Wait()
	var fr api.Frame
	getJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Snapshots) != n || len(fr.Events) != n {
		t.Errorf("%d snapshots and %d events, want %d of each", len(fr.Snapshots), len(fr.Events), n)
	}
}
