package sourcetest_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// offers lists the capabilities src has, in a fixed order.
func offers(src source.Source) []string {
	var out []string
	c := src.Controls()
	if c.Processing != nil {
		out = append(out, "processing")
	}
	if c.Stalling != nil {
		out = append(out, "stalling")
	}
	if c.Faults != nil {
		out = append(out, "faults")
	}
	if c.Workload != nil {
		out = append(out, "workload")
	}
	if c.Queue != nil {
		out = append(out, "queue")
	}
	return out
}

func TestCapabilitiesAreTheSourcesControls(t *testing.T) {
	for _, tc := range []struct {
		src  source.Source
		want []string
	}{
		{sourcetest.New(sourcetest.Config{}), nil},
		{sourcetest.NewCluster(sourcetest.New(sourcetest.Config{}), nil), []string{"processing", "stalling", "queue"}},
		{sourcetest.NewDemo(sourcetest.New(sourcetest.Config{}), nil), []string{"processing", "stalling", "faults", "workload", "queue"}},
	} {
		if got := offers(tc.src); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%T offers %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestPullReplaysFramesAndEvents(t *testing.T) {
	snap := func(name string, emitted, dropped uint64) source.Informer {
		return source.Informer{Name: name, Events: source.RingStats{Emitted: emitted, Dropped: dropped}}
	}
	var events []source.Event
	for seq := uint64(1); seq <= 5; seq++ {
		events = append(events, source.Event{Seq: seq})
	}
	status := source.Status{State: source.Disconnected, LastError: "EOF"}
	f := sourcetest.New(sourcetest.Config{
		Kind: "attach", Title: "localhost:6060", Notes: []string{"headline"}, Status: status, Events: events,
		Frames: [][]source.Informer{{snap("a", 10, 0), snap("b", 7, 3)}, {snap("a", 20, 1)}},
	})
	fr := f.Pull(0, 2)
	if len(fr.Snapshots) != 2 || fr.Notes[0] != "headline" || fr.Status != status || fr.Paused {
		t.Fatalf("first frame %+v", fr)
	}
	if fr.EventStats != (source.RingStats{Emitted: 10, Dropped: 3}) {
		t.Errorf("stats %+v, want the largest of the snapshots'", fr.EventStats)
	}
	if len(fr.Events) != 2 || fr.Events[0].Seq != 1 || fr.Next != 3 || fr.Missed != 0 {
		t.Errorf("events %v next %d missed %d", fr.Events, fr.Next, fr.Missed)
	}
	if fr = f.Pull(fr.Next, 0); len(fr.Events) != 3 || fr.Next != 6 {
		t.Errorf("from 3: events %v next %d", fr.Events, fr.Next)
	}
	if fr = f.Pull(6, 0); len(fr.Events) != 0 || fr.Next != 6 {
		t.Errorf("past the end: events %v next %d", fr.Events, fr.Next)
	}
	f.Advance()
	f.Advance()
	if fr = f.Pull(0, 0); len(fr.Snapshots) != 1 || fr.EventStats.Emitted != 20 {
		t.Errorf("Advance should stay on the last frame: %+v", fr.Snapshots)
	}
	f2 := sourcetest.New(sourcetest.Config{EventStats: &source.RingStats{Emitted: 99}, Frames: [][]source.Informer{{snap("a", 10, 5)}}})
	if got := f2.Pull(0, 0).EventStats; got != (source.RingStats{Emitted: 99}) {
		t.Errorf("explicit stats %+v", got)
	}
	c := sourcetest.NewCluster(f2, nil)
	c.Ctl.SetPausedState(true)
	if !c.Pull(0, 0).Paused {
		t.Error("a Cluster's frame does not report its pause state")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.Run(ctx)
	if err := f.WaitSynced(ctx); err != nil || f.Kind() != "attach" || f.Title() != "localhost:6060" {
		t.Errorf("WaitSynced %v, kind %q, title %q", err, f.Kind(), f.Title())
	}
}

func TestStoreReadsLikeAnInformer(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "creds", ResourceVersion: "7",
		Labels: map[string]string{"app": "db"}, CreationTimestamp: metav1.NewTime(created)},
		Data: map[string][]byte{"password": []byte("hunter2")}}
	st := sourcetest.NewStore(3,
		sourcetest.Item{Key: "ns/creds", Object: secret, Indexes: map[string][]string{"namespace": {"ns"}}},
		sourcetest.Item{Key: "ns/a", Object: "a bare string", Labels: map[string]string{"x": "y"}, Indexes: map[string][]string{"namespace": {"ns"}, "node": {"n1"}}},
	)
	entries, gen := st.Entries()
	want := []source.Entry{{Key: "ns/a", Labels: map[string]string{"x": "y"}}, {Key: "ns/creds", Labels: map[string]string{"app": "db"}, Created: created}}
	if gen != 3 || !reflect.DeepEqual(entries, want) {
		t.Fatalf("entries %+v at %d", entries, gen)
	}
	obj, ok := st.Object("ns/creds")
	if !ok || obj.Kind != "Secret" || obj.ResourceVersion != "7" || !obj.HasMetadata ||
		strings.Contains(obj.YAML, "hunter2") || !strings.Contains(obj.YAML, "<redacted, 7 bytes>") {
		t.Fatalf("object %+v", obj)
	}
	if !reflect.DeepEqual(obj.IndexEntries, map[string][]string{"namespace": {"ns"}, "node": {}}) {
		t.Errorf("index entries %v", obj.IndexEntries)
	}
	if obj, _ := st.Object("ns/a"); obj.HasMetadata {
		t.Errorf("a string has no metadata: %+v", obj)
	}
	if _, ok := st.Object("ns/gone"); ok {
		t.Error("an unknown key was found")
	}
	if got := st.IndexNames(); !reflect.DeepEqual(got, []string{"namespace", "node"}) {
		t.Errorf("index names %v", got)
	}
	if got := st.IndexKeys("namespace", "ns"); !reflect.DeepEqual(got, []string{"ns/a", "ns/creds"}) {
		t.Errorf("keys in ns %v", got)
	}
	next := st.Without("ns/a")
	if next.Generation() != 4 || len(next.IndexValues("node")) != 0 || st.Generation() != 3 {
		t.Errorf("Without: generation %d, node values %v", next.Generation(), next.IndexValues("node"))
	}
	f := sourcetest.New(sourcetest.Config{Stores: map[string]source.StoreReader{"secrets": st}})
	if f.Store("secrets") != st || f.Store("pods") != nil {
		t.Error("Store should serve the configured reader and a nil interface for others")
	}
}

func TestControlsRecordEveryCall(t *testing.T) {
	c := &sourcetest.Controller{}
	if _, err := c.Step("pods"); !errors.Is(err, sourcetest.ErrNotPaused) {
		t.Errorf("step while running: %v", err)
	}
	c.SetStepResult(source.StepResult{Informer: "pods", Key: "ns/a"})
	_ = c.SetPaused(true)
	if res, err := c.Step("pods"); err != nil || res.Key != "ns/a" {
		t.Errorf("step %+v %v", res, err)
	}
	if s, _ := c.ToggleStall("pods", "audit"); !s || !c.Stalled("pods", "audit") {
		t.Error("ToggleStall did not stall")
	}
	_ = c.Resync("pods")
	_ = c.DropWatch()
	_ = c.ExpireHistory()
	if r, _ := c.AdjustRate(-1); r != -sourcetest.RateStep {
		t.Errorf("rate %v", r)
	}
	boom := errors.New("boom")
	c.SetFailure(boom)
	if err := c.SetPaused(false); err != boom || !c.Paused() {
		t.Errorf("a failing SetPaused returned %v and changed the state", err)
	}
	want := []string{"Step(pods)", "SetPaused(true)", "Step(pods)", "ToggleStall(pods,audit)", "Resync(pods)",
		"DropWatch", "ExpireHistory", "AdjustRate(-1)", "SetPaused(false)"}
	if got := c.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v\nwant  %v", got, want)
	}
	c.SetQueued("pods", "ns/a", cache.Deltas{{Type: cache.Updated}})
	if d := c.QueueDeltas("pods", "ns/a"); len(d) != 1 {
		t.Errorf("queued %v", d)
	}
	c.SetQueued("pods", "ns/a", nil)
	if d := c.QueueDeltas("pods", "ns/a"); d != nil {
		t.Errorf("after popping: %v", d)
	}
	if got := c.QueueReads(); !reflect.DeepEqual(got, []string{"pods ns/a", "pods ns/a"}) {
		t.Errorf("queue reads %v", got)
	}
}

func TestPullReturnsWorkqueues(t *testing.T) {
	f := sourcetest.New(sourcetest.Config{})
	if got := f.Pull(0, 0).Workqueues; got != nil {
		t.Fatalf("workqueues %v before any were set, want none", got)
	}
	f = sourcetest.New(sourcetest.Config{Workqueues: []source.Workqueue{{Name: "deployments", Depth: 3}}})
	fr := f.Pull(0, 0)
	if len(fr.Workqueues) != 1 || fr.Workqueues[0].Name != "deployments" || fr.Workqueues[0].Depth != 3 {
		t.Fatalf("workqueues %+v, want deployments at depth 3", fr.Workqueues)
	}
	fr.Workqueues[0].Depth = 99 // a frame is the caller's: the fake keeps its own
	f.SetWorkqueues([]source.Workqueue{{Name: "deployments", Depth: 4}, {Name: "pods", Adds: 7}})
	got := f.Pull(0, 0).Workqueues
	if len(got) != 2 || got[0].Depth != 4 || got[1].Name != "pods" || got[1].Adds != 7 {
		t.Fatalf("after SetWorkqueues: %+v", got)
	}
}

// The fake the dashboard's tests rest on behaves as every real source
// must: what passes with it passes for the reason it would with them.
func TestFakeConforms(t *testing.T) {
	frames := [][]source.Informer{{{Name: "pods", Listeners: []source.Listener{{Name: "fast"}}}, {Name: "secrets", QueueKind: source.DeltaFIFO}}}
	f := sourcetest.New(sourcetest.Config{Kind: "fake", Title: "fake · test", Frames: frames,
		Status: source.Status{State: source.Live},
		Stores: map[string]source.StoreReader{"pods": &sourcetest.Store{}}})
	var seq uint64
	churn := func(_ testing.TB, n int) {
		for range n {
			seq++
			f.AddEvents(source.Event{Seq: seq, Type: source.EventWatchEvent, Informer: "pods"})
		}
	}
	for _, src := range []source.Source{f, sourcetest.NewCluster(f, nil), sourcetest.NewDemo(f, nil)} {
		sourcetest.Conform(t, src, 0, churn)
	}
}
