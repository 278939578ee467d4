package demo

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

func TestSlowWatcher(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "slow-watcher", Seed: 6, Queue: q, Objects: 40, Rate: 100, TimeScale: 0.01})
			g := holdSteps(d, "stall again", "done")
			var stalledAt string
			reflector := func(relists, lists uint64) claim {
				return func(d *Demo) (bool, string) {
					r := snapshotOf(t, d, "pods").Reflector
					if r.Relists != relists || r.Lists != lists {
						return false, fmt.Sprintf("%d lists and %d relists", r.Lists, r.Relists)
					}
					return true, ""
				}
			}
			notes := watchNotes(d, map[string]claim{
				"intro":   claimSynced,
				"quiesce": func(d *Demo) (bool, string) { return d.work.held(), "the workload runs" },
				"stall": claimAll(reflector(0, 1), func(d *Demo) (bool, string) {
					stalledAt = snapshotOf(t, d, "pods").LastSyncResourceVersion
					cs := d.cluster.Stats()
					return cs.WatchesSlow == 1, fmt.Sprintf("%d watches terminated", cs.WatchesSlow)
				}),
				// The note says the reflector resumed from where it stood
				// and the window still covered it: no 410, no relist.
				"recovered note": claimAll(reflector(0, 1), func(d *Demo) (bool, string) {
					cs := d.cluster.Stats()
					if cs.Expired != 0 {
						return false, fmt.Sprintf("the server answered 410 %d times", cs.Expired)
					}
					if !strings.Contains(d.Notes()[0], "re-watched from resourceVersion "+stalledAt+",") {
						return false, fmt.Sprintf("the note %q does not name RV %s", d.Notes()[0], stalledAt)
					}
					if !watchOpenedFrom(d, "pods", stalledAt) {
						return false, "no watch was opened from RV " + stalledAt
					}
					return caughtUp(d), "the informer has not caught up with the burst"
				}),
				"stall again": func(d *Demo) (bool, string) {
					n := len(d.deletedWhileDown())
					return n == slowDeletes, fmt.Sprintf("%d pods deleted", n)
				},
				"window moved": claimAll(reflector(0, 1), func(d *Demo) (bool, string) {
					rv, w := informerRV(d, "pods"), d.watchWindow(cluster.Pods)
					if rv >= w.OldestRV {
						return false, fmt.Sprintf("the client at RV %d is still inside the window %d–%d", rv, w.OldestRV, w.NewestRV)
					}
					cs := d.cluster.Stats()
					return cs.WatchesSlow >= 2, fmt.Sprintf("%d watches terminated", cs.WatchesSlow)
				}),
				"relisted note": claimAll(reflector(1, 2), func(d *Demo) (bool, string) {
					cs := d.cluster.Stats()
					if cs.Expired == 0 {
						return false, "the server never answered 410"
					}
					for _, ls := range snapshotOf(t, d, "pods").Listeners {
						if ls.Delivered.Tombstones != slowDeletes {
							return false, fmt.Sprintf("view 3 counts %d tombstones for %s", ls.Delivered.Tombstones, ls.Name)
						}
					}
					return true, ""
				}),
			})
			start(t, d)
			awaitStep(t, d, g, notes, "stall again")
			// Phase one: terminated, re-watched, no relist.
			cs := d.cluster.Stats()
			r := snapshotOf(t, d, "pods").Reflector
			if cs.WatchesSlow != 1 || r.Relists != 0 || r.Lists != 1 || cs.Expired != 0 {
				t.Errorf("after the first stall: %d terminated, %d lists, %d relists, %d 410s; want 1 terminated and a re-watch without a relist",
					cs.WatchesSlow, r.Lists, r.Relists, cs.Expired)
			}
			if r.Watches < 2 {
				t.Errorf("%d watches opened, want a re-watch after the termination", r.Watches)
			}
			g.let("stall again")
			awaitStep(t, d, g, notes, "done")
			notes.check(t, "intro", "quiesce", "stall", "recovered", "recovered note", "stall again", "window moved", "relisted", "relisted note")
			quiesce(t, d)
			assertConsistent(t, d)

			// Phase two: the re-watch came too late for the window.
			r = snapshotOf(t, d, "pods").Reflector
			if r.Relists != 1 || r.Lists != 2 {
				t.Errorf("%d lists, %d relists; want the initial list and one relist", r.Lists, r.Relists)
			}
			if r.WatchErrors == 0 || !strings.Contains(r.LastError, "410") {
				t.Errorf("the reflector saw no 410: %d watch errors, last error %q", r.WatchErrors, r.LastError)
			}
			want := map[string]int{}
			for _, k := range d.deletedWhileDown() {
				want[k] = 1
			}
			for _, l := range d.Listeners("pods") {
				if rec := l.Record(); !maps.Equal(rec.TombstoneKeys, want) {
					t.Errorf("%s got DeletedFinalStateUnknown for %v, want %v", l.Name(), rec.TombstoneKeys, want)
				}
			}
		})
	}
}

// watchOpenedFrom: the informer's reflector opened a watch from rv, as the
// Events view (5) shows it (watch opens are kept in the lifecycle ring).
func watchOpenedFrom(d *Demo, informer, rv string) bool {
	events, _, _ := d.Events().Since(0, 0)
	for _, ev := range events {
		if ev.Type == pipeline.EventWatchOpen && ev.Informer == informer && ev.Detail == rv {
			return true
		}
	}
	return false
}
