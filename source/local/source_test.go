package local

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
)

// newPods builds a source with one pods informer over a simulated server
// holding n pods, and a listener named slow.
func newPods(t *testing.T, n int) (*Source, *cluster.Cluster) {
	t.Helper()
	c := cluster.New(cluster.Options{Seed: 3})
	if err := c.Populate(cluster.Pods, n); err != nil {
		t.Fatal(err)
	}
	lwc, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	example, _ := c.ExampleObject(cluster.Pods)
	s := New(Config{Kind: "test", Title: "test · pods", Notes: func() []string { return []string{"headline"} }})
	inf := engine.NewSharedIndexInformerWithOptions(lwc.(cache.ListerWatcher), example, engine.Options{
		Name: "pods", Resource: "pods",
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: engine.Instrumentation{Events: s.Events()},
	})
	if _, err := s.AddInformer("pods", "pods", engine.RealFIFO, inf); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddListener("pods", ListenerSpec{Name: "slow"}); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func run(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := s.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
}

// TestPullIsOneFrame: one Pull carries what a dashboard tick shows, and
// the event cursor moves forward without repeating events.
func TestPullIsOneFrame(t *testing.T) {
	s, _ := newPods(t, 10)
	run(t, s)
	f := s.Pull(0, 0)
	if len(f.Snapshots) != 1 || f.Snapshots[0].Name != "pods" || !f.Snapshots[0].Synced {
		t.Fatalf("snapshots %+v", f.Snapshots)
	}
	if len(f.Notes) != 1 || f.Notes[0] != "headline" || f.Status.State != source.Live || f.Paused {
		t.Errorf("notes %q, status %+v, paused %v", f.Notes, f.Status, f.Paused)
	}
	if len(f.Events) == 0 || f.Next != f.Events[len(f.Events)-1].Seq+1 || f.EventStats.Emitted < uint64(len(f.Events)) {
		t.Errorf("%d events, next %d, stats %+v", len(f.Events), f.Next, f.EventStats)
	}
	s.Log("a control")
	g := s.Pull(f.Next, 0)
	if len(g.Events) != 1 || g.Events[0].Type != source.EventControl || g.Events[0].Detail != "a control" {
		t.Errorf("events after the cursor: %+v", g.Events)
	}
}

// TestStoreReadsAreReadyToShow: entries carry labels and creation times,
// objects come as YAML with their index entries.
func TestStoreReadsAreReadyToShow(t *testing.T) {
	s, c := newPods(t, 5)
	run(t, s)
	sr := s.Store("pods")
	if s.Store("nope") != nil {
		t.Error("a store for an unknown informer")
	}
	entries, gen := sr.Entries()
	if len(entries) != 5 || gen != sr.Generation() {
		t.Fatalf("%d entries at generation %d (now %d)", len(entries), gen, sr.Generation())
	}
	if keys := c.Keys(cluster.Pods); entries[0].Key != keys[0] || entries[0].Created.IsZero() || len(entries[0].Labels) == 0 {
		t.Errorf("entry %+v; server keys %v", entries[0], keys)
	}
	obj, ok := sr.Object(entries[0].Key)
	if !ok || obj.Kind != "Pod" || !obj.HasMetadata || obj.ResourceVersion == "" || !strings.Contains(obj.YAML, "namespace:") || len(obj.IndexEntries["namespace"]) != 1 {
		t.Errorf("object %+v", obj)
	}
	if _, ok := sr.Object("no/such"); ok {
		t.Error("an object for a key that is not cached")
	}
}

// TestControls: pause and step act on the informers, stalling needs a
// simulated listener, informers cannot be added once running.
func TestControls(t *testing.T) {
	s, c := newPods(t, 3)
	run(t, s)
	if _, err := s.AddInformer("late", "pods", engine.RealFIFO, nil); err == nil {
		t.Error("an informer was added to a running source")
	}
	if !s.SetPausedBy(true, source.PausedByScenario) {
		t.Fatal("a scenario could not pause a running source")
	}
	if f := s.Pull(0, 1); !f.Paused || f.PausedBy != source.PausedByScenario {
		t.Fatalf("a scenario's pause reads paused %v by %q", f.Paused, f.PausedBy)
	}
	if err := s.SetPaused(true); err != nil || !s.Paused() || !s.Pull(0, 1).Paused {
		t.Fatalf("pause: %v, paused %v", err, s.Paused())
	}
	if by := s.Pull(0, 1).PausedBy; by != source.PausedByYou {
		t.Fatalf("after the user paused, PausedBy = %q", by)
	}
	// The user's pause wins over a scenario's resume.
	if s.SetPausedBy(false, source.PausedByScenario) || !s.Paused() || s.Pull(0, 1).PausedBy != source.PausedByYou {
		t.Fatal("a scenario resumed processing the user had paused")
	}
	// Paused, nothing goes through unless stepped: step a first update
	// through (bookmarks may be queued before it), then the second.
	keys := c.Keys(cluster.Pods)
	first, err := c.Update(cluster.Pods, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	_, firstRV := KeyAndVersion(first)
	waitfor.Seen(t, "the first update stepped into the store", func() (bool, string) {
		o, _ := s.Store("pods").Object(keys[0])
		if o.ResourceVersion == firstRV {
			return true, ""
		}
		if _, err := s.Step("pods"); err != nil {
			return false, err.Error()
		}
		return false, "the store has " + keys[0] + " at " + o.ResourceVersion + ", want " + firstRV
	})
	want := keys[1]
	if _, err := c.Update(cluster.Pods, want); err != nil {
		t.Fatal(err)
	}
	// Bookmarks may come first; the update arrives within a few steps.
	var res source.StepResult
	waitfor.Seen(t, "a step to pop "+want, func() (bool, string) {
		var err error
		if res, err = s.Step("pods"); err != nil {
			return false, err.Error()
		}
		return res.Key == want, fmt.Sprintf("the last step popped %+v", res)
	})
	if res.Key != want || len(res.Notifications) == 0 {
		t.Errorf("stepped %+v, want the update of %s", res, want)
	}
	if _, err := s.Step("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("step on an unknown informer: %v", err)
	}
	if err := s.SetPaused(false); err != nil || s.Paused() || s.Pull(0, 1).PausedBy != "" {
		t.Fatal("resume")
	}
	if stalled, err := s.ToggleStall("pods", "slow"); err != nil || !stalled || !s.Listener("pods", "slow").Stalled() {
		t.Errorf("stall slow: %v %v", stalled, err)
	}
	if _, err := s.ToggleStall("pods", "someone-elses"); err == nil || !strings.Contains(err.Error(), "simulated") {
		t.Errorf("stalling a listener informtop does not run: %v", err)
	}
	// No resync period: client-go's reflector would never resync, so
	// neither does a forced one.
	if err := s.Resync("pods"); err == nil || !strings.Contains(err.Error(), "no resync period") {
		t.Errorf("forced resync on an informer without a resync period: %v, want a refusal saying why", err)
	}
}

// TestReadsWhatIsOwedAndQueued: a stalled listener's backlog reads oldest
// first, and the whole queue pages past any snapshot head.
func TestReadsWhatIsOwedAndQueued(t *testing.T) {
	s, c := newPods(t, 4)
	run(t, s)
	if stalled, err := s.ToggleStall("pods", "slow"); err != nil || !stalled {
		t.Fatalf("stall slow: %v %v", stalled, err)
	}
	keys := c.Keys(cluster.Pods)
	for _, k := range keys {
		if _, err := c.Update(cluster.Pods, k); err != nil {
			t.Fatal(err)
		}
	}
	// slow is stuck in the first update; the other three wait, in order.
	var owed []string
	waitfor.Seen(t, "slow to owe three updates", func() (bool, string) {
		owed = owed[:0]
		for _, p := range s.ListenerBacklog("pods", "slow", 10) {
			owed = append(owed, p.Callback+" "+p.Key)
		}
		return len(owed) == len(keys)-1, fmt.Sprintf("slow owes %q", owed)
	})
	want := []string{"OnUpdate " + keys[1], "OnUpdate " + keys[2], "OnUpdate " + keys[3]}
	if strings.Join(owed, ",") != strings.Join(want, ",") {
		t.Errorf("slow owes %q, want %q", owed, want)
	}
	if got := s.ListenerBacklog("pods", "nobody", 10); got != nil {
		t.Errorf("an unknown listener owes %v", got)
	}
	if rows, total := s.QueueRows("nope", 0, 10); rows != nil || total != 0 {
		t.Errorf("an unknown informer's queue: %v, %d", rows, total)
	}
	if _, err := s.ToggleStall("pods", "slow"); err != nil {
		t.Fatal(err)
	}
}
