package engineserve

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
)

func TestFrameCarriesSnapshotsEventsAndReasons(t *testing.T) {
	f := newFixture(t, 1024, engine.Options{Instrumentation: engine.Instrumentation{ItemEvents: true}})
	srv := server(t, serve.Options{Name: "my-controller"}, f.pods, f.secrets)

	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if fr.Version != api.Version || fr.Source != "my-controller" {
		t.Errorf("version %q, source %q", fr.Version, fr.Source)
	}
	if len(fr.Snapshots) != 2 || fr.Snapshots[0].Name != "pods" || fr.Snapshots[1].Name != "secrets" {
		t.Fatalf("snapshots = %+v", fr.Snapshots)
	}
	if l := fr.Snapshots[0].Listeners; len(l) != 1 || l[0].Name != "blocked" || l[0].Pending != 2 {
		t.Errorf("listeners = %+v", l)
	}
	if len(fr.Events) == 0 || fr.Next != fr.Events[len(fr.Events)-1].Seq+1 {
		t.Fatalf("%d events, next %d", len(fr.Events), fr.Next)
	}
	keyed := 0
	for _, e := range fr.Events {
		if e.Key != "" {
			keyed++
		}
	}
	if keyed == 0 {
		t.Errorf("no event carries a key: %+v", fr.Events)
	}
	if fr.EventStats.Emitted == 0 {
		t.Errorf("event stats = %+v", fr.EventStats)
	}
	// Both informers synced; the reasons are for informers only.
	if len(fr.Reasons) != 0 {
		t.Errorf("reasons = %v, want none", fr.Reasons)
	}

	// Resuming from Next returns only newer events.
	f.podSource.Add(pod("d"))
	waitfor.True(t, "the new pod to be cached", func() bool { return f.pods.Snapshot().Store.Objects == 4 })
	var next api.Frame
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, fr.Next), &next)
	if len(next.Events) == 0 {
		t.Fatal("no events after a new pod")
	}
	sawD := false
	for _, e := range next.Events {
		if e.Seq < fr.Next {
			t.Errorf("event %d is older than the cursor %d", e.Seq, fr.Next)
		}
		sawD = sawD || e.Key == "default/d"
	}
	if !sawD || next.Missed != 0 {
		t.Errorf("resumed frame: saw default/d %t, missed %d", sawD, next.Missed)
	}

	// max bounds the events.
	var one api.Frame
	servetest.GetJSON(t, srv, api.PathFrame+"?cursor=1&max=1", &one)
	if len(one.Events) != 1 || one.Next != one.Events[0].Seq+1 {
		t.Errorf("max=1: %d events, next %d", len(one.Events), one.Next)
	}
}

// The frame carries figures; the reader words why an informer has not
// synced from them, as it does for any source.
func TestFrameSaysEnoughToTellWhyNotSynced(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "idle"})
	srv := server(t, serve.Options{}, inf)
	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Snapshots) != 1 {
		t.Fatalf("%d informers in the frame, want 1", len(fr.Snapshots))
	}
	if why := say.Reason(fr.Reasons, fr.Snapshots[0], fr.Taken); why != "not started yet" {
		t.Errorf("the reader says %q from %+v, want \"not started yet\"", why, fr.Snapshots[0])
	}
}

func TestSlowClientMissesEventsWithoutSlowingTheInformer(t *testing.T) {
	ring := instr.NewRing(8)
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods", Instrumentation: engine.Instrumentation{Events: ring}})
	srv := server(t, serve.Options{}, inf)
	var first api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &first)
	for i := range 100 {
		ring.Emit(instr.Event{Type: pipeline.EventPop, Informer: "pods", Detail: fmt.Sprint(i)}) // per-item events: the ring keeps lifecycle ones longer
	}
	var fr api.Frame
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, first.Next), &fr)
	if fr.Missed == 0 || len(fr.Events) != 8 || fr.Missed+uint64(len(fr.Events)) != 100 {
		t.Errorf("missed %d, %d events; want 92 missed, 8 held", fr.Missed, len(fr.Events))
	}
	if fr.EventStats.Dropped == 0 {
		t.Errorf("event stats = %+v", fr.EventStats)
	}
}

func TestFrameHidesInformersNotGiven(t *testing.T) {
	ring := instr.NewRing(64)
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods", Instrumentation: engine.Instrumentation{Events: ring}})
	ring.Emit(instr.Event{Type: pipeline.EventControl, Informer: "other", Key: "default/hidden"})
	ring.Emit(instr.Event{Type: pipeline.EventControl, Informer: "pods", Key: "default/shown"})
	srv := server(t, serve.Options{}, inf)
	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Events) != 1 || fr.Events[0].Key != "default/shown" || fr.Next != 3 {
		t.Errorf("events = %+v, next %d", fr.Events, fr.Next)
	}
}

func TestFrameMergesInformersWithTheirOwnRings(t *testing.T) {
	a := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "a"})
	b := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "b"})
	a.Events().Emit(instr.Event{Type: pipeline.EventControl, Informer: "a", Key: "ns/1"})
	b.Events().Emit(instr.Event{Type: pipeline.EventControl, Informer: "b", Key: "ns/2"})
	srv := server(t, serve.Options{}, a, b)
	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Events) != 2 || fr.Events[0].Key != "ns/1" || fr.Events[1].Key != "ns/2" || fr.Next != 3 {
		t.Fatalf("merged events = %+v, next %d", fr.Events, fr.Next)
	}
	b.Events().Emit(instr.Event{Type: pipeline.EventControl, Informer: "b", Key: "ns/3"})
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, fr.Next), &fr)
	if len(fr.Events) != 1 || fr.Events[0].Key != "ns/3" || fr.Events[0].Seq != 3 {
		t.Fatalf("resumed merged events = %+v", fr.Events)
	}
	if fr.EventStats.Emitted != 3 {
		t.Errorf("stats = %+v, want the source rings' 3 emitted", fr.EventStats)
	}
}

// Informers with rings of their own are merged by the agent on each
// request; events a source ring overwrote between two requests are still
// counted as missed by the client that reads past them.
func TestMergedFeedTellsTheClientWhatASourceRingLost(t *testing.T) {
	ringA, ringB := instr.NewRing(8), instr.NewRing(8)
	a := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "a", Instrumentation: engine.Instrumentation{Events: ringA}})
	b := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "b", Instrumentation: engine.Instrumentation{Events: ringB}})
	srv := server(t, serve.Options{}, a, b)
	var first api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &first)
	for i := range 100 {
		ringA.Emit(instr.Event{Type: pipeline.EventPop, Informer: "a", Detail: fmt.Sprint(i)})
	}
	ringB.Emit(instr.Event{Type: pipeline.EventPop, Informer: "b", Detail: "kept"})
	var fr api.Frame
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, first.Next), &fr)
	if len(fr.Events) != 9 || fr.Missed != 92 {
		t.Fatalf("after 100 events into a ring of 8: %d events, missed %d; want 9 events (8 of a, 1 of b) and 92 missed", len(fr.Events), fr.Missed)
	}
	// Read on from there: nothing more was lost.
	ringA.Emit(instr.Event{Type: pipeline.EventPop, Informer: "a", Detail: "later"})
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, fr.Next), &fr)
	if len(fr.Events) != 1 || fr.Missed != 0 {
		t.Fatalf("resumed: %d events, missed %d; want 1 and 0", len(fr.Events), fr.Missed)
	}
	// A second client, further behind, is told of the same loss. It asks
	// with max (the most it could get anyway) so that its frame is its
	// own, not the first client's shared for a tenth of a second: it
	// holds the event emitted since.
	var late api.Frame
	servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d&max=%d", api.PathFrame, first.Next, api.MaxEvents), &late)
	if late.Missed != 92 || len(late.Events) != 10 {
		t.Fatalf("a second client from the same cursor: %d events, missed %d; want 10 (the 9 and a's later one) and 92", len(late.Events), late.Missed)
	}
}
