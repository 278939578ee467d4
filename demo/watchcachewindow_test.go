package demo

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

func TestWatchCacheWindow(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "watch-cache-window", Seed: 7, Queue: q, Objects: 40, Rate: 100, TimeScale: 0.01})
			g := holdSteps(d, "done")
			names := []string{"pods", "quiet", "quiet-no-bookmarks"}
			var expiredBefore uint64
			watchErrorsBefore := map[string]uint64{}
			relists := func(want map[string]uint64) claim {
				return func(d *Demo) (bool, string) {
					for n, w := range want {
						if r := snapshotOf(t, d, n).Reflector; r.Relists != w {
							return false, fmt.Sprintf("%s relisted %d times, want %d", n, r.Relists, w)
						}
					}
					return true, ""
				}
			}
			var writesAtQuiesce uint64
			notes := watchNotes(d, map[string]claim{
				"intro": claimAll(claimSynced, claimBookmarksSpedUp),
				"quiesce": func(d *Demo) (bool, string) {
					writesAtQuiesce = d.cluster.Stats().Writes
					return d.work.held(), "the workload runs"
				},
				"away": func(d *Demo) (bool, string) {
					// Nothing was written since the workload paused.
					if w := d.cluster.Stats().Writes; w != writesAtQuiesce {
						return false, fmt.Sprintf("%d writes since the workload paused", w-writesAtQuiesce)
					}
					expiredBefore = d.cluster.Stats().Expired
					for _, n := range names {
						watchErrorsBefore[n] = snapshotOf(t, d, n).Reflector.WatchErrors
					}
					return !d.cluster.Available() && watchesDown(d), "the server is up or a watch is open"
				},
				// Every client's resourceVersion is older than the window.
				"gap note": func(d *Demo) (bool, string) {
					w := d.watchWindow(cluster.Pods)
					for _, n := range names {
						if rv := informerRV(d, n); rv >= w.OldestRV {
							return false, fmt.Sprintf("%s at RV %d is inside the window %d–%d", n, rv, w.OldestRV, w.NewestRV)
						}
					}
					return len(d.deletedWhileDown()) == windowDeletes, "the pods were not deleted"
				},
				"back note": claimAll(relists(map[string]uint64{"pods": 1, "quiet": 1, "quiet-no-bookmarks": 2}), func(d *Demo) (bool, string) {
					if cs := d.cluster.Stats(); cs.Expired < expiredBefore+3 {
						return false, fmt.Sprintf("the server answered 410 %d times since the outage, want one per informer", cs.Expired-expiredBefore)
					}
					for _, n := range names {
						if r := snapshotOf(t, d, n).Reflector; r.WatchErrors <= watchErrorsBefore[n] || !strings.Contains(r.LastError, "410") {
							return false, fmt.Sprintf("%s saw no 410: %d watch errors, last %q", n, r.WatchErrors, r.LastError)
						}
					}
					for _, ls := range snapshotOf(t, d, "pods").Listeners {
						if ls.Delivered.Tombstones != windowDeletes {
							return false, fmt.Sprintf("view 3 counts %d tombstones for %s", ls.Delivered.Tombstones, ls.Name)
						}
					}
					return true, ""
				}),
				// Bookmarks alone kept quiet inside the window.
				"quiet note": func(d *Demo) (bool, string) {
					w := d.watchWindow(cluster.Pods)
					quiet, nobm := informerRV(d, "quiet"), informerRV(d, "quiet-no-bookmarks")
					if quiet < w.OldestRV || nobm >= w.OldestRV {
						return false, fmt.Sprintf("quiet at RV %d, quiet-no-bookmarks at RV %d, window %d–%d", quiet, nobm, w.OldestRV, w.NewestRV)
					}
					for _, n := range []string{"quiet", "quiet-no-bookmarks"} {
						if r := snapshotOf(t, d, n).Reflector; r.WatchAdded+r.WatchModified+r.WatchDeleted != 0 {
							return false, fmt.Sprintf("%s got object events", n)
						}
					}
					return true, ""
				},
				"drop": relists(map[string]uint64{"pods": 0, "quiet": 0}),
				"relisted": claimAll(relists(map[string]uint64{"pods": 0, "quiet": 0, "quiet-no-bookmarks": 1}),
					claimGoneThenRelisted("quiet-no-bookmarks")),
			})
			start(t, d)
			awaitStep(t, d, g, notes, "done")
			notes.check(t, "intro", "quiet churn", "quiet note", "drop", "relisted", "quiesce", "away", "gap", "gap note", "back", "back note")
			quiesce(t, d)
			assertConsistent(t, d)

			// The client away relisted with tombstones for the deletes it missed.
			want := map[string]int{}
			for _, k := range d.deletedWhileDown() {
				want[k] = 1
			}
			for _, l := range d.Listeners("pods") {
				if rec := l.Record(); !maps.Equal(rec.TombstoneKeys, want) {
					t.Errorf("pods/%s got DeletedFinalStateUnknown for %v, want %v", l.Name(), rec.TombstoneKeys, want)
				}
			}
			// Of the quiet informers only the one without bookmarks relisted
			// after the drop; the one with bookmarks re-watched. Both
			// relisted after the outage.
			quiet, nobm := snapshotOf(t, d, "quiet").Reflector, snapshotOf(t, d, "quiet-no-bookmarks").Reflector
			if quiet.Relists != 1 || quiet.WatchBookmarks == 0 {
				t.Errorf("quiet: %d relists, %d bookmarks; want only the relist after the outage, and bookmarks", quiet.Relists, quiet.WatchBookmarks)
			}
			if nobm.Relists != 2 || nobm.WatchBookmarks != 0 {
				t.Errorf("quiet-no-bookmarks: %d relists, %d bookmarks; want a relist after the outage and one after the drop, no bookmarks", nobm.Relists, nobm.WatchBookmarks)
			}
		})
	}
}
