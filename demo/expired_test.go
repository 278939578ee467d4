package demo

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

func TestExpired(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "expired", Seed: 5, Queue: q, Objects: 40, Rate: 100, TimeScale: 0.01})
			for _, l := range d.Listeners("pods") {
				l.KeepSequence(true)
			}
			g := holdSteps(d, "done")
			server := func(up bool) claim {
				return func(d *Demo) (bool, string) {
					return d.cluster.Available() == up, fmt.Sprintf("the server accepts connections: %v", !up)
				}
			}
			notes := watchNotes(d, map[string]claim{
				"intro":       claimSynced,
				"quiesce":     func(d *Demo) (bool, string) { return d.work.held(), "the workload runs" },
				"server down": server(false),
				"delete while down": claimAll(server(false), func(d *Demo) (bool, string) {
					n := len(d.deletedWhileDown())
					return n == expiredDeletes, fmt.Sprintf("%d pods deleted", n)
				}),
				// The server is back, but the reflector learns it only at
				// its next try: the note says what will happen, and no 410
				// is claimed yet.
				"server up": claimAll(server(true), func(d *Demo) (bool, string) {
					note := strings.Join(d.Notes(), " ")
					return strings.Contains(note, "does not know yet") && strings.Contains(note, "will answer that re-watch with 410 Gone") && !strings.Contains(note, "answered 410"),
						fmt.Sprintf("note %q", note)
				}),
				// The 410 has happened when the note says so.
				"gone": func(d *Demo) (bool, string) {
					r := snapshotOf(t, d, "pods").Reflector
					note := d.Notes()[0]
					return r.WatchErrors == 1 && strings.Contains(r.LastError, "410") && strings.Contains(note, "the server answered 410 Gone") && r.Relists == 0,
						fmt.Sprintf("%d 410s, %d relists, last error %q; note %q", r.WatchErrors, r.Relists, r.LastError, note)
				},
				// The note sends the learner to view 3's tombstone counts.
				"relisted": func(d *Demo) (bool, string) {
					s := snapshotOf(t, d, "pods")
					if s.Reflector.Relists != 1 {
						return false, fmt.Sprintf("%d relists", s.Reflector.Relists)
					}
					for _, ls := range s.Listeners {
						if ls.Delivered.Tombstones != expiredDeletes {
							return false, fmt.Sprintf("view 3 counts %d tombstones for %s", ls.Delivered.Tombstones, ls.Name)
						}
					}
					want := fmt.Sprintf("The relist also listed %d pods cached and unchanged", s.Reflector.LastListItems)
					if note := strings.Join(d.Notes(), " "); !strings.Contains(note, "OnUpdate is also called when a re-list happens") || !strings.Contains(note, want) {
						return false, fmt.Sprintf("note %q lacks %q", note, want)
					}
					return true, ""
				},
			})
			start(t, d)
			g.await(t, "done")
			notes.check(t, "intro", "quiesce", "server down", "delete while down", "server up", "gone", "relisted")
			// The relist's OnUpdate calls, as many as the note says: one
			// sync per listed pod for every listener (the workload was held
			// from before the fault until the relist).
			relisted := snapshotOf(t, d, "pods")
			waitfor.Seen(t, "the relist's syncs delivered", func() (bool, string) {
				for _, ls := range snapshotOf(t, d, "pods").Listeners {
					if got := ls.Delivered.Sync - d.mark("pods").syncs[ls.Name]; got != uint64(relisted.Reflector.LastListItems) {
						return false, fmt.Sprintf("%s: %d sync OnUpdates since the fault, the relist listed %d", ls.Name, got, relisted.Reflector.LastListItems)
					}
				}
				return true, ""
			})
			quiesce(t, d)
			assertConsistent(t, d)

			deleted := d.deletedWhileDown()
			if len(deleted) != expiredDeletes {
				t.Fatalf("the script deleted %v while the watch was down, want %d pods", deleted, expiredDeletes)
			}
			want := map[string]int{}
			for _, k := range deleted {
				want[k] = 1
			}
			for _, l := range d.Listeners("pods") {
				rec := l.Record()
				// Exactly the missed deletes arrive as tombstones, once each.
				if !maps.Equal(rec.TombstoneKeys, want) {
					t.Errorf("%s got DeletedFinalStateUnknown for %v, want %v", l.Name(), rec.TombstoneKeys, want)
				}
				// And those keys got no other delete.
				for _, c := range rec.Calls {
					if c.Callback == "OnDelete" && want[c.Key] == 1 && !c.Tombstone {
						t.Errorf("%s got a plain OnDelete for %s, whose delete event was never sent", l.Name(), c.Key)
					}
				}
			}
			// Every listener was told the same things in the same order, and
			// the tombstones came together, in one run, from the relist.
			ls := d.Listeners("pods")
			first := ls[0].Record().Calls
			for _, l := range ls[1:] {
				if calls := l.Record().Calls; !slices.Equal(calls, first) {
					t.Errorf("%s's %d calls differ from %s's %d", l.Name(), len(calls), ls[0].Name(), len(first))
				}
			}
			run := slices.IndexFunc(first, func(c local.Call) bool { return c.Tombstone })
			if run < 0 || run+len(deleted) > len(first) {
				t.Fatalf("no run of %d tombstones in %d calls", len(deleted), len(first))
			}
			for i, c := range first[run : run+len(deleted)] {
				if !c.Tombstone || want[c.Key] != 1 {
					t.Errorf("call %d after the first tombstone is %+v, want a tombstone for a deleted pod", i, c)
				}
			}
			r := snapshotOf(t, d, "pods").Reflector
			if r.Relists != 1 || r.Lists != 2 {
				t.Errorf("%d lists, %d relists; want the initial list and one relist", r.Lists, r.Relists)
			}
			if cs := d.cluster.Stats(); cs.Expired != 1 {
				t.Errorf("the server answered 410 Expired %d times, want once (the re-watch)", cs.Expired)
			}
			// The engine shows the 410 the reflector keeps to itself.
			if r.WatchErrors != 1 || !strings.Contains(r.LastError, "410 Gone") {
				t.Errorf("reflector stats do not show the expired watch: %d watch errors, last error %q", r.WatchErrors, r.LastError)
			}
		})
	}
}
