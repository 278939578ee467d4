package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/informtop/informtop/demo"
)

// The lesson of every other scenario, read from its --once --json. Runs
// without background churn (Rate -1) compare counts exactly: only the
// script's own changes happen.

// informer is the named informer of the report.
func (r scenarioReport) informer(t *testing.T, name string) int {
	t.Helper()
	for i, inf := range r.Informers {
		if inf.Name == name {
			return i
		}
	}
	t.Fatalf("no informer %q in the report", name)
	return -1
}

// noteFigure is the number the notes give after prefix; the test fails
// if no note says it.
func (r scenarioReport) noteFigure(t *testing.T, prefix string) uint64 {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `([0-9,]+)`)
	for _, n := range r.Notes {
		for _, l := range n.Lines {
			if m := re.FindStringSubmatch(l); m != nil {
				v, err := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
				if err == nil {
					return v
				}
			}
		}
	}
	t.Fatalf("no note says %q followed by a number", prefix)
	return 0
}

func checkSteps(t *testing.T, r scenarioReport, want ...string) {
	t.Helper()
	if got := r.noteSteps(); !slices.Equal(got, want) {
		t.Errorf("notes of steps %v, want %v", got, want)
	}
}

// steady: every informer listed once and never again, every handler synced.
func TestOnceScenarioSteady(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "steady", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "tour: pipeline", "tour: listeners", "tour: store", "tour: faults")
	if len(r.Informers) != 4 {
		t.Errorf("%d informers, want pods, configmaps, deployments and secrets", len(r.Informers))
	}
	for _, inf := range r.Informers {
		if inf.Reflector.Lists != 1 || inf.Reflector.Relists != 0 || !inf.Reflector.ListStreamed {
			t.Errorf("%s: %+v; want one streamed list, no relist", inf.Name, inf.Reflector)
		}
		for _, l := range inf.Listeners {
			if !l.Synced || l.Stalled {
				t.Errorf("%s/%s synced %t, stalled %t", inf.Name, l.Name, l.Synced, l.Stalled)
			}
		}
	}
}

// stalled-listener: slow resumed and lost nothing: no longer stalled, and
// what it got or still owes is what fast got or owes (the churn goes on, so
// each may be inside one call the other has finished).
func TestOnceScenarioStalledListener(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "stalled-listener", Seed: 5, Objects: 40, Rate: 20, TimeScale: 0.01})
	checkSteps(t, r, "intro", "stall slow", "resume slow", "drained")
	inf := r.Informers[0]
	owed := func(i int) int { return int(inf.Listeners[i].Delivered) + inf.Listeners[i].Pending }
	for i, l := range inf.Listeners {
		if d := owed(i) - owed(0); l.Stalled || l.Panics != 0 || d < -1 || d > 1 {
			t.Errorf("%s: stalled %t, %d delivered + %d pending; want not stalled and as many as %s's %d + %d, give or take the call in progress",
				l.Name, l.Stalled, l.Delivered, l.Pending, inf.Listeners[0].Name, inf.Listeners[0].Delivered, inf.Listeners[0].Pending)
		}
	}
}

// watch-drop: the watch broke and the server refused re-watches, yet the
// reflector only re-watched: one list, no relist.
func TestOnceScenarioWatchDrop(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "watch-drop", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "intro", "drop watch", "server down", "server up", "recovered", "done")
	rf := r.Informers[0].Reflector
	if rf.Lists != 1 || rf.Relists != 0 || rf.Watches < 3 || rf.Errors == 0 {
		t.Errorf("reflector %+v; want 1 list, no relist, a watch per reconnect (3+), the refused ones counted as errors", rf)
	}
}

// resync: syncs reach only listeners with a resync period; the 1 s one
// has at least as many as the 3 s one.
func TestOnceScenarioResync(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "resync", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "intro", "what a sync is", "queue")
	syncs := map[string]uint64{}
	for _, l := range r.Informers[0].Listeners {
		syncs[l.Name] = l.DeliveredByType.Sync
	}
	if syncs["resync-1s"] == 0 || syncs["resync-1s"] < syncs["resync-3s"] || syncs["no-resync"] != 0 {
		t.Errorf("syncs %v; want resync-1s's, at least resync-3s's, and none for no-resync", syncs)
	}
}

// initial-sync: a LIST in pages of 500, every handler synced once its
// initial OnAdds returned, the late one after one OnAdd per cached pod.
func TestOnceScenarioInitialSync(t *testing.T) {
	t.Parallel()
	const objects = 1200
	r := onceScenario(t, demo.Config{Scenario: "initial-sync", Seed: 5, Objects: objects, Rate: -1, TimeScale: 0.01})
	checkSteps(t, r, "listing", "informer synced", "listeners synced", "late listener", "late listener synced")
	inf := r.Informers[0]
	if rf := inf.Reflector; rf.ListStreamed || rf.ListPages != (objects+499)/500 || rf.Lists != 1 {
		t.Errorf("reflector %+v; want one LIST of %d pages", rf, (objects+499)/500)
	}
	names := []string{}
	for _, l := range inf.Listeners {
		names = append(names, l.Name)
		if !l.Synced || l.DeliveredByType.Add != objects {
			t.Errorf("%s: synced %t after %d OnAdds; want synced after %d", l.Name, l.Synced, l.DeliveredByType.Add, objects)
		}
	}
	if !slices.Contains(names, "late") {
		t.Errorf("listeners %v: the late listener is missing", names)
	}
}

// fifo-compare: the same changes through a DeltaFIFO and a RealFIFO reach
// each listener as the same notifications.
func TestOnceScenarioFIFOCompare(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "fifo-compare", Seed: 5, Objects: 40, Rate: -1, TimeScale: 0.01})
	checkSteps(t, r, "intro", "pause", "burst", "resume", "drained")
	df, rf := r.Informers[r.informer(t, "pods-deltafifo")], r.Informers[r.informer(t, "pods-realfifo")]
	if len(df.Listeners) != len(rf.Listeners) {
		t.Fatalf("%d and %d listeners", len(df.Listeners), len(rf.Listeners))
	}
	for i := range df.Listeners {
		a, b := df.Listeners[i], rf.Listeners[i]
		if a.DeliveredByType != b.DeliveredByType || a.DeliveredByType.Update == 0 {
			t.Errorf("%s: %+v through the DeltaFIFO, %+v through the RealFIFO; want the same, the burst's updates among them", a.Name, a.DeliveredByType, b.DeliveredByType)
		}
	}
}

// mutating-handler: the detector charged labeler, and only labeler.
func TestOnceScenarioMutatingHandler(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "mutating-handler", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "intro", "mutate", "next version", "lesson")
	for _, l := range r.Informers[0].Listeners {
		if (l.CacheMutations > 0) != (l.Name == "labeler") {
			t.Errorf("%s: %d cache mutations; want them on labeler alone", l.Name, l.CacheMutations)
		}
	}
}

// slow-watcher: the server terminated the stalled watch twice; the second
// time the window had moved on, so the client relisted and every listener
// got a tombstone per pod deleted while it did not read.
func TestOnceScenarioSlowWatcher(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "slow-watcher", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "intro", "quiesce", "stall", "recovered note", "stall again", "window moved", "relisted note", "done")
	inf := r.Informers[0]
	deleted := r.noteFigure(t, "This time ")
	if inf.Server.TerminatedWatchers < 2 || inf.Reflector.Relists != 1 {
		t.Errorf("server %+v, reflector %+v; want 2+ terminated watchers and one relist", inf.Server, inf.Reflector)
	}
	for _, l := range inf.Listeners {
		if l.DeliveredByType.Tombstones != deleted {
			t.Errorf("%s: %d tombstones, want the %d pods deleted while it did not read", l.Name, l.DeliveredByType.Tombstones, deleted)
		}
	}
}

// watch-cache-window: quiet resumed on bookmarks where quiet-no-bookmarks
// relisted; away longer than the window, every informer relisted and the
// pods listeners got a tombstone per pod deleted meanwhile.
func TestOnceScenarioWatchCacheWindow(t *testing.T) {
	t.Parallel()
	r := onceScenario(t, demo.Config{Scenario: "watch-cache-window", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	checkSteps(t, r, "intro", "quiet note", "drop", "relisted", "quiesce", "away", "gap note", "back note", "done")
	relists := map[string]uint64{}
	for _, inf := range r.Informers {
		relists[inf.Name] = inf.Reflector.Relists
	}
	if want := map[string]uint64{"pods": 1, "quiet": 1, "quiet-no-bookmarks": 2}; fmt.Sprint(relists) != fmt.Sprint(want) {
		t.Errorf("relists %v, want %v", relists, want)
	}
	deleted := r.noteFigure(t, "While they were away ")
	for _, l := range r.Informers[r.informer(t, "pods")].Listeners {
		if l.DeliveredByType.Tombstones != deleted {
			t.Errorf("pods/%s: %d tombstones, want the %d pods deleted while away", l.Name, l.DeliveredByType.Tombstones, deleted)
		}
	}
}
