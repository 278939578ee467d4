package demo

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

func TestWatchDrop(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "watch-drop", Seed: 4, Queue: q, Objects: 30, Rate: 200, TimeScale: 0.01})
			g := holdSteps(d, "done")
			watch := func(open bool, watches uint64) claim {
				return func(d *Demo) (bool, string) {
					r := snapshotOf(t, d, "pods").Reflector
					if r.WatchOpen != open || r.Watches < watches || r.Relists != 0 {
						return false, fmt.Sprintf("the watch is open %v after %d watches and %d relists", r.WatchOpen, r.Watches, r.Relists)
					}
					return true, ""
				}
			}
			server := func(up bool) claim {
				return func(d *Demo) (bool, string) {
					return d.cluster.Available() == up, fmt.Sprintf("the server accepts connections: %v", !up)
				}
			}
			notes := watchNotes(d, map[string]claim{
				"intro":       claimSynced,
				"drop watch":  watch(true, 2),
				"server down": claimAll(server(false), watch(false, 2)),
				"server up":   server(true),
				"recovered":   watch(true, 3),
			})
			start(t, d)
			g.await(t, "done")
			notes.check(t, "intro", "drop watch", "server down", "server up", "recovered")
			quiesce(t, d)
			assertConsistent(t, d)

			r := snapshotOf(t, d, "pods").Reflector
			// One LIST at start; the drop and the outage were bridged by
			// re-watching from the last resourceVersion.
			if r.Lists != 1 || r.Relists != 0 {
				t.Errorf("%d lists, %d relists; a dropped watch must not relist", r.Lists, r.Relists)
			}
			if r.Watches != 3 {
				t.Errorf("%d watches opened, want 3: the first, after the drop, after the outage", r.Watches)
			}
			if r.Errors == 0 {
				t.Error("no failed call was recorded while the server refused connections")
			}
			cs := d.cluster.Stats()
			if cs.Refused == 0 || cs.Expired != 0 || cs.WatchesDropped != 2 {
				t.Errorf("server: %d refused, %d expired, %d dropped; want some refused, none expired, 2 dropped", cs.Refused, cs.Expired, cs.WatchesDropped)
			}
			// The changes made while the watch was down were replayed as
			// ordinary events: nobody saw a tombstone.
			for _, l := range d.Listeners("pods") {
				if rec := l.Record(); rec.Tombstones != 0 {
					t.Errorf("%s got %d DeletedFinalStateUnknown deletes without a relist", l.Name(), rec.Tombstones)
				}
			}
		})
	}
}
