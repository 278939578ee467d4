package tui

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// ":" reaches views and quits as in k9s, with completion on tab.
func TestColonCommands(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys(":")
	h.typeText("events")
	h.keys("enter")
	if h.m.active != viewEvents || h.m.switcher != nil {
		t.Fatalf(":events left view %d, prompt open %v", h.m.active, h.m.switcher != nil)
	}
	h.keys(":", "s", "t", "o", "tab")
	if got := h.m.switcher.input.Value(); got != "store" {
		t.Fatalf("tab completed sto to %q", got)
	}
	h.keys("enter")
	if h.m.active != viewStore {
		t.Fatalf(":store opened view %d", h.m.active)
	}
	h.keys(":", "3", "enter")
	if h.m.active != viewListeners {
		t.Fatalf(":3 opened view %d", h.m.active)
	}
	h.keys(":", "q", "enter")
	if !h.quit {
		t.Fatal(":q did not quit")
	}
	h = fixture(t, 80, 24)
	h.keys(":")
	h.typeText("quit")
	h.keys("enter")
	if !h.quit {
		t.Fatal(":quit did not quit")
	}
}

// ctrl+a lists the informers and every command.
func TestCtrlAListsInformersAndCommands(t *testing.T) {
	h := fixture(t, 80, 30)
	h.keys("ctrl+a")
	screen := h.screen()
	for _, want := range []string{"⚠ pods", "stalled: audit", "✓ secrets", "✗ configmaps", ": pipeline", ": queue", ": listeners", ": store", ": events", ": narration", ": help", ": quit"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("ctrl+a lacks %q:\n%s", want, screen)
		}
	}
	h.keys("esc")
	if h.m.switcher != nil || h.quit {
		t.Fatal("esc should only close the list")
	}
}

// One change per second is singular.
func TestWorkloadRateIsSingularAtOne(t *testing.T) {
	h := fixture(t, 80, 24)
	h.ctl.SetRate(1 - sourcetest.RateStep)
	h.keys("+")
	if !strings.Contains(h.screen(), "workload: 1 change/s") {
		t.Fatalf("want \"1 change/s\":\n%s", h.screen())
	}
	h.keys("+")
	if !strings.Contains(h.screen(), "changes/s") {
		t.Fatalf("want changes/s above one:\n%s", h.screen())
	}
}

// b pops a batch as client-go's batched pop does, when the source offers
// Processing; the narration says which kind of step happened, and help
// explains both. A source without Processing hides the key.
func TestBatchStep(t *testing.T) {
	h := fixture(t, 160, 48)
	res := fixtureStep
	res.Batch = 37
	h.ctl.SetBatchResult(res)
	h.keys("b")
	if got := h.ctl.Calls(); strings.Join(got, " ") != "SetPaused(true) StepBatch(pods)" {
		t.Fatalf("b called %v", got)
	}
	if !strings.Contains(h.screen(), "step 1 · pods · batch step") || !strings.Contains(h.screen(), "37 items popped at once, as client-go v0.37's batched pop does") {
		t.Fatalf("the narration does not say a batch was popped:\n%s", h.screen())
	}
	h.keys("n")
	if !strings.Contains(h.screen(), "step 2 · pods · single step: one item popped") {
		t.Fatalf("the narration does not say a single step:\n%s", h.screen())
	}
	h.keys("esc", "?")
	flat := strings.Join(strings.Fields(strings.ReplaceAll(h.screen(), "│", " ")), " ")
	if !strings.Contains(flat, "n pops one item, as client-go's Pop does; b pops a batch") {
		t.Fatalf("help does not explain single and batch steps:\n%s", h.screen())
	}

	ro := newHarness(t, sourcetest.New(clusterConfig()))
	ro.size(160, 48)
	ro.frames(fixtureFrames)
	ro.keys("?")
	if s := ro.screen(); strings.Contains(s, "batch step") {
		t.Fatalf("a source without Processing offers the batch step:\n%s", s)
	}
	ro.keys("esc", "b")
	if !strings.Contains(ro.screen(), "b does nothing on") {
		t.Fatalf("b on a read-only source does not say why:\n%s", ro.screen())
	}
}

// A batch the engine popped is narrated by its headline and a line per
// listener and callback, never a line per key.
func TestBatchStepNarratesPerListener(t *testing.T) {
	h := fixture(t, 80, 24)
	res := source.StepResult{Informer: "pods", Kind: source.StepBatch, QueueKind: source.RealFIFO, Batching: true, Batch: 40}
	for i := 0; i < 40; i++ {
		k := fmt.Sprintf("default/web-%d", i)
		res.Keys = append(res.Keys, k)
		res.Store = append(res.Store, "Update "+k)
		res.Deltas = append(res.Deltas, cache.Updated)
		for _, l := range []string{"fast", "slow"} {
			res.Notifications = append(res.Notifications, source.StepNotification{Listener: l, Callback: "OnUpdate", Key: k})
		}
	}
	res.Key = res.Keys[0]
	res.Summary = []source.NotificationCount{{Listener: "fast", Callback: "OnUpdate", Count: 40}, {Listener: "slow", Callback: "OnUpdate", Count: 40}}
	h.ctl.SetBatchResult(res)
	h.keys("b")
	screen := h.screen()
	flat := strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", " ")), " ")
	for _, want := range []string{"step 1 · pods · batch step", "batch step: popped 40 items at once, as client-go's batched RealFIFO pop does",
		"notified fast ← OnUpdate ×40", "slow ← OnUpdate ×40", "store Update default/web-0 → … → Update default/web-39 (40 changes)"} {
		if !strings.Contains(flat, want) {
			t.Fatalf("the batch narration lacks %q:\n%s", want, screen)
		}
	}
	if strings.Count(screen, "←") != 2 {
		t.Fatalf("a batch narrates a line per key:\n%s", screen)
	}
}

// A resync's SyncAll is one queue item that notifies each syncing listener
// once per cached object (client-go v0.37 hands every cached object to
// OnUpdate): the narration says so per listener, not a line per key.
func TestSyncAllStepNarratesPerListener(t *testing.T) {
	h := fixture(t, 100, 30)
	res := source.StepResult{Informer: "pods", Kind: source.StepSingle, QueueKind: source.RealFIFO, Batch: 1,
		Keys: []string{""}, Deltas: []cache.DeltaType{cache.SyncAll}, ResourceVersions: []string{""}}
	for i := 0; i < 50; i++ {
		res.Notifications = append(res.Notifications, source.StepNotification{Listener: "resync-1s", Callback: "OnUpdate (sync)", Key: fmt.Sprintf("default/web-%d", i)})
	}
	res.Summary = []source.NotificationCount{{Listener: "resync-1s", Callback: "OnUpdate (sync)", Count: 50}}
	h.ctl.SetStepResult(res)
	h.keys("n")
	screen := h.screen()
	flat := strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", " ")), " ")
	for _, want := range []string{"single step: popped 1 item (SyncAll, no key)", "popped (no key) with SyncAll", "notified resync-1s ← OnUpdate (sync) ×50"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the SyncAll step lacks %q", want)
		}
	}
	if t.Failed() || strings.Count(screen, "←") != 1 {
		t.Fatalf("a SyncAll step is not one line per listener:\n%s", screen)
	}
}
