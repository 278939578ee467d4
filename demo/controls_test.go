package demo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
)

// quietDemo runs the stalled-listener scenario with no background workload
// and the script held before it stalls anyone, so only the test acts.
func quietDemo(t *testing.T, q source.QueueKind) *Demo {
	t.Helper()
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 10, Queue: q, Objects: 12, Rate: -1, TimeScale: 0.01})
	g := holdSteps(d, "stall slow")
	start(t, d)
	g.await(t, "stall slow")
	quiesce(t, d)
	d.work.release() // quiesce held it; the rate is 0 anyway
	return d
}

// settle waits until the pods watch has been open long enough that closing
// it is not mistaken for a failed watch.
func settle(t *testing.T, d *Demo) {
	t.Helper()
	waitfor.Seen(t, "a settled watch", func() (bool, string) { return watchesSettled(d), "watch young or down" })
}

func TestControlsPauseAndStep(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.DeltaFIFO)
	if d.Paused() {
		t.Fatal("paused before SetPaused")
	}
	mustOK(t, d.SetPaused(true))
	if !d.Paused() || !snapshotOf(t, d, "pods").Paused {
		t.Fatal("SetPaused(true) did not pause the informer")
	}
	// The engine holds the pop loop before its next pop: changes stay
	// queued until stepped.
	key := d.cluster.Keys(cluster.Pods)[0]
	_, err := d.cluster.Update(cluster.Pods, key)
	mustOK(t, err)
	waitfor.Seen(t, "a queued update", func() (bool, string) {
		s := snapshotOf(t, d, "pods")
		return s.Queue.Depth == 1, fmt.Sprintf("depth %d", s.Queue.Depth)
	})
	want := resourceVersion(d.cluster.Snapshot(cluster.Pods)[key])
	if got := storeVersions(d.Informer("pods"))[key]; got == want {
		t.Fatalf("the update reached the store while paused")
	}
	step, err := d.Step("pods")
	mustOK(t, err)
	if step.Key != key || !slices.Equal(step.Deltas, []cache.DeltaType{cache.Updated}) || !slices.Equal(step.Store, []string{"Update " + key}) {
		t.Errorf("step: key %s deltas %v store %v; want %s [Updated] [Update %s]", step.Key, step.Deltas, step.Store, key, key)
	}
	// The narration follows the write from etcd to the reflector, stage
	// by stage, before the engine's own part.
	assertJourney(t, step.Journey, []string{
		"etcd revision " + want + ": MODIFIED",
		"storage watcher decoded it (incoming ",
		"watch cache appended it (window ",
		"dispatched to 1 watcher",
		"reflector received MODIFIED " + key,
	})
	var told []string
	for _, n := range step.Notifications {
		told = append(told, n.Listener+" "+n.Callback+" "+n.Key)
	}
	wantTold := []string{"fast OnUpdate " + key, "medium OnUpdate " + key, "slow OnUpdate " + key}
	if !slices.Equal(told, wantTold) {
		t.Errorf("step notified %v, want %v", told, wantTold)
	}
	if got := storeVersions(d.Informer("pods"))[key]; got != want {
		t.Errorf("after the step the store has %s at %s, want %s", key, got, want)
	}
	step, err = d.Step("pods")
	mustOK(t, err)
	if !step.Empty {
		t.Errorf("stepping an empty queue: %+v", step)
	}
	mustOK(t, d.SetPaused(false))
	if d.Paused() {
		t.Error("still paused after SetPaused(false)")
	}
	if _, err := d.Step("pods"); !errors.Is(err, engine.ErrNotPaused) {
		t.Errorf("Step while running: %v, want ErrNotPaused", err)
	}
	if _, err := d.Step("nope"); err == nil {
		t.Error("Step on an unknown informer succeeded")
	}
}

func TestControlsToggleStall(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.RealFIFO)
	stalled, err := d.ToggleStall("pods", "medium")
	mustOK(t, err)
	if !stalled || !d.Listener("pods", "medium").Stalled() {
		t.Fatal("ToggleStall did not stall medium")
	}
	key := d.cluster.Keys(cluster.Pods)[0]
	_, err = d.cluster.Update(cluster.Pods, key)
	mustOK(t, err)
	waitfor.Seen(t, "medium stuck in OnUpdate", func() (bool, string) {
		ls := listenerStats(t, snapshotOf(t, d, "pods"), "medium")
		return ls.InCallback == source.CallbackUpdate && ls.InCallbackKey == key, fmt.Sprintf("in %q %q", ls.InCallback, ls.InCallbackKey)
	})
	stalled, err = d.ToggleStall("pods", "medium")
	mustOK(t, err)
	if stalled {
		t.Fatal("the second ToggleStall did not release medium")
	}
	waitfor.Seen(t, "medium released", func() (bool, string) {
		ls := listenerStats(t, snapshotOf(t, d, "pods"), "medium")
		return ls.InCallback == "" && ls.Delivered.Update == 1, fmt.Sprintf("in %q, %d updates", ls.InCallback, ls.Delivered.Update)
	})
	if _, err := d.ToggleStall("pods", "nobody"); err == nil {
		t.Error("stalling an unknown listener succeeded")
	}
	if _, err := d.ToggleStall("nope", "fast"); err == nil {
		t.Error("stalling on an unknown informer succeeded")
	}
}

func TestControlsDropWatch(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.RealFIFO)
	settle(t, d)
	before := snapshotOf(t, d, "pods").Reflector
	mustOK(t, d.DropWatch())
	waitfor.Seen(t, "a re-watch", func() (bool, string) {
		r := snapshotOf(t, d, "pods").Reflector
		return r.Watches == before.Watches+1 && r.WatchOpen, fmt.Sprintf("%d watches, open %v", r.Watches, r.WatchOpen)
	})
	if r := snapshotOf(t, d, "pods").Reflector; r.Lists != before.Lists {
		t.Errorf("a dropped watch caused a LIST: %d lists, was %d", r.Lists, before.Lists)
	}
}

func TestControlsExpireHistory(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.RealFIFO)
	settle(t, d)
	mustOK(t, d.ExpireHistory())
	waitfor.Seen(t, "a relist", func() (bool, string) {
		r := snapshotOf(t, d, "pods").Reflector
		return r.Relists == 1 && !r.ListInProgress && r.WatchOpen, fmt.Sprintf("%d relists, watch open %v", r.Relists, r.WatchOpen)
	})
	if cs := d.cluster.Stats(); cs.Expired != 1 {
		t.Errorf("the server answered 410 %d times, want once", cs.Expired)
	}
	quiesce(t, d)
	assertConsistent(t, d)
}

func TestControlsResync(t *testing.T) {
	t.Parallel()
	const objects = 12
	t.Run("without a resync period it refuses", func(t *testing.T) {
		t.Parallel()
		d := quietDemo(t, source.DeltaFIFO)
		// client-go's reflector has no resync timer here, so nothing is
		// queued and the listeners keep taking relist syncs.
		if err := d.Resync("pods"); err == nil || !strings.Contains(err.Error(), "no resync period") {
			t.Fatalf("Resync = %v, want a refusal saying the informer has no resync period", err)
		}
		if s := snapshotOf(t, d, "pods"); s.Queue.Added.Sync != 0 || s.Reflector.Resyncs != 0 {
			t.Errorf("a refused resync queued %d sync deltas, counted %d resyncs", s.Queue.Added.Sync, s.Reflector.Resyncs)
		}
		if err := d.Resync("nope"); err == nil {
			t.Error("Resync of an unknown informer succeeded")
		}
	})
	t.Run("with one it reaches the listeners that have a period", func(t *testing.T) {
		t.Parallel()
		d := newDemo(t, Config{Scenario: "resync", Seed: 10, Queue: source.DeltaFIFO, Objects: objects, Rate: -1, TimeScale: 0.01})
		start(t, d)
		waitfor.Seen(t, "the informers synced", func() (bool, string) { return informersSynced(d), "not synced" })
		mustOK(t, d.SetPaused(true))
		before := snapshotOf(t, d, "pods")
		mustOK(t, d.Resync("pods"))
		// DeltaFIFO queues a Sync delta for every cached key.
		waitfor.Seen(t, "sync deltas queued", func() (bool, string) {
			s := snapshotOf(t, d, "pods")
			return s.Queue.Added.Sync-before.Queue.Added.Sync >= objects, fmt.Sprintf("%d sync deltas", s.Queue.Added.Sync)
		})
		mustOK(t, d.SetPaused(false))
		quiesce(t, d)
		for _, l := range d.Listeners("pods") {
			if rec := l.Record(); l.Name() == "no-resync" && rec.Syncs != 0 {
				t.Errorf("%s got %d syncs without a resync period", l.Name(), rec.Syncs)
			}
		}
		if s := d.Listener("pods", "resync-3s").Record().Syncs; s < objects {
			t.Errorf("resync-3s got %d syncs; the forced resync makes every listener with a period due", s)
		}
	})
}

func TestControlsAdjustRate(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Seed: 11, Rate: -1, Objects: 5})
	for _, tc := range []struct {
		step int
		want float64
	}{{+1, 1}, {+1, 2}, {+1, 5}, {-1, 2}, {-1, 1}, {-1, 0}, {-1, 0}, {0, 0}} {
		got, err := d.AdjustRate(tc.step)
		mustOK(t, err)
		if got != tc.want || d.Rate() != tc.want {
			t.Fatalf("AdjustRate(%+d) = %v (Rate %v), want %v", tc.step, got, d.Rate(), tc.want)
		}
	}
	d.SetRate(3000)
	if got, _ := d.AdjustRate(+1); got != 5000 {
		t.Errorf("one rung above 3000 is %v, want 5000", got)
	}
	if got, _ := d.AdjustRate(+1); got != 5000 {
		t.Errorf("the top rung moved to %v", got)
	}
	// A running workload follows the new rate.
	d.SetRate(0)
	start(t, d)
	ctxWait(t, d)
	before := changes(d)
	d.SetRate(100)
	got, err := d.AdjustRate(+1)
	mustOK(t, err)
	if got != 200 {
		t.Errorf("one rung above 100 is %v, want 200", got)
	}
	waitfor.Seen(t, "changes at the new rate", func() (bool, string) {
		return changes(d) > before, "no change yet"
	})
}

func TestControlsServerAvailability(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.RealFIFO)
	settle(t, d)
	d.SetServerAvailable(false)
	waitfor.Seen(t, "refused calls", func() (bool, string) {
		r := snapshotOf(t, d, "pods").Reflector
		return !r.WatchOpen && d.cluster.Stats().Refused > 0, fmt.Sprintf("watch open %v, %d refused", r.WatchOpen, d.cluster.Stats().Refused)
	})
	d.SetServerAvailable(true)
	waitfor.Seen(t, "the watch back", func() (bool, string) {
		r := snapshotOf(t, d, "pods").Reflector
		return r.WatchOpen, "watch down"
	})
	if r := snapshotOf(t, d, "pods").Reflector; r.Lists != 1 {
		t.Errorf("an outage caused a relist: %d lists", r.Lists)
	}
}

func TestControlsAddRemoveListener(t *testing.T) {
	t.Parallel()
	const objects = 12
	d := quietDemo(t, source.RealFIFO)
	_, err := d.AddListener("pods", local.ListenerSpec{Name: "late", Delay: time.Millisecond})
	mustOK(t, err)
	l := d.Listener("pods", "late")
	if l == nil {
		t.Fatal("the new listener is not listed")
	}
	waitfor.Seen(t, "the late listener syncing", func() (bool, string) {
		rec := l.Record()
		return rec.Synced, fmt.Sprintf("%d initial adds", rec.InitialAdds)
	})
	if rec := l.Record(); rec.InitialAdds != objects || rec.InitialAddsAtSync != objects || rec.Adds != objects {
		t.Errorf("late listener: %d initial adds (%d at sync, %d adds), want %d", rec.InitialAdds, rec.InitialAddsAtSync, rec.Adds, objects)
	}
	if names := listenerNames(snapshotOf(t, d, "pods")); !slices.Equal(names, []string{"fast", "medium", "slow", "late"}) {
		t.Errorf("listeners %v", names)
	}
	if _, err := d.AddListener("pods", local.ListenerSpec{Name: "late", Delay: 0}); err == nil {
		t.Error("a second listener named late was accepted")
	}
	if _, err := d.AddListener("nope", local.ListenerSpec{Name: "x", Delay: 0}); err == nil {
		t.Error("a listener on an unknown informer was accepted")
	}

	// A removed listener hears nothing more, even while stalled.
	l.SetStalled(true)
	key := d.cluster.Keys(cluster.Pods)[0]
	_, err = d.cluster.Update(cluster.Pods, key)
	mustOK(t, err)
	waitfor.Seen(t, "late stuck", func() (bool, string) {
		return listenerStats(t, snapshotOf(t, d, "pods"), "late").InCallback != "", "not in a callback"
	})
	_, err = d.cluster.Update(cluster.Pods, key)
	mustOK(t, err)
	mustOK(t, d.RemoveListener("pods", "late"))
	if names := listenerNames(snapshotOf(t, d, "pods")); !slices.Equal(names, []string{"fast", "medium", "slow"}) {
		t.Errorf("listeners after removal %v", names)
	}
	quiesce(t, d)
	if rec := l.Record(); rec.Updates > 1 {
		t.Errorf("the removed listener handled %d updates, at most the one it was stuck in", rec.Updates)
	}
	if err := d.RemoveListener("pods", "late"); err == nil {
		t.Error("removing it twice succeeded")
	}
	assertConsistent(t, d)
}

func listenerNames(s source.Informer) []string {
	var names []string
	for _, ls := range s.Listeners {
		names = append(names, ls.Name)
	}
	return names
}

func ctxWait(t *testing.T, d *Demo) {
	t.Helper()
	waitfor.Seen(t, "sync", func() (bool, string) { return informersSynced(d), "not synced" })
}

// The case: a relist (x) delivers every unchanged object to slow
// as a sync; r must not change that, so the next relist does it again.
func TestControlsResyncLeavesRelistSyncs(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.RealFIFO)
	relist := func(n uint64) int {
		t.Helper()
		settle(t, d)
		mustOK(t, d.ExpireHistory())
		waitfor.Seen(t, fmt.Sprintf("relist %d", n), func() (bool, string) {
			r := snapshotOf(t, d, "pods").Reflector
			return r.Relists == n && !r.ListInProgress && r.WatchOpen, fmt.Sprintf("%d relists, watch open %v", r.Relists, r.WatchOpen)
		})
		quiesce(t, d)
		return d.Listener("pods", "slow").Record().Syncs
	}
	first := relist(1)
	if first == 0 {
		t.Fatal("a relist delivered no sync to slow: nothing to compare")
	}
	forced := d.Resync("pods")
	if second := relist(2); second <= first {
		t.Errorf("after r, a relist delivered no more syncs to slow (%d, then %d)", first, second)
	}
	if forced == nil {
		t.Error("r on an informer without a resync period was accepted")
	}
}

// assertJourney checks that a step's journey has a line starting with each
// of want, in that order.
func assertJourney(t *testing.T, journey, want []string) {
	t.Helper()
	i := 0
	for _, line := range journey {
		if i < len(want) && strings.HasPrefix(line, want[i]) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("journey lacks %q in order:\n%s", want[i], strings.Join(journey, "\n"))
	}
}
