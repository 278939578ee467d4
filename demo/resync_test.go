package demo

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

func TestResync(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			const objects = 20
			d := newDemo(t, Config{Scenario: "resync", Seed: 6, Queue: q, Objects: objects, Rate: -1, TimeScale: 0.01})
			notes := watchNotes(d, map[string]claim{"intro": claimSynced})
			start(t, d)
			notes.await(t, "queue")
			notes.check(t, "intro", "what a sync is", "queue")

			// Sample only when no resync is under way: the resync count is
			// the same before and after, and nothing is queued or running.
			type sample struct {
				resyncs uint64
				syncs   map[string]int
			}
			take := func() (sample, bool) {
				wasDrained := drained(d)
				before := snapshotOf(t, d, "pods")
				s := sample{resyncs: before.Reflector.Resyncs, syncs: map[string]int{}}
				for _, l := range d.Listeners("pods") {
					s.syncs[l.Name()] = l.Record().Syncs
				}
				after := snapshotOf(t, d, "pods")
				quiet := after.Reflector.Resyncs == s.resyncs && wasDrained && after.Queue.Depth == 0 && listenersIdle(d)
				return s, quiet
			}
			var s sample
			waitfor.Seen(t, "resync-3s receiving a resync", func() (bool, string) {
				var quiet bool
				s, quiet = take()
				return quiet && s.syncs["resync-3s"] > 0 && s.resyncs >= 4, fmt.Sprintf("%d resyncs, syncs %v", s.resyncs, s.syncs)
			})
			// resync-1s is due at every one-second check, so it got a sync
			// for every object at every resync; resync-3s only at some of
			// them; no-resync never.
			if got, want := s.syncs["resync-1s"], int(s.resyncs)*objects; got != want {
				t.Errorf("resync-1s got %d syncs in %d resyncs, want %d", got, s.resyncs, want)
			}
			if got := s.syncs["resync-3s"]; got%objects != 0 || got >= s.syncs["resync-1s"] {
				t.Errorf("resync-3s got %d syncs: want whole resyncs of %d objects, fewer than resync-1s's %d", got, objects, s.syncs["resync-1s"])
			}
			if got := s.syncs["no-resync"]; got != 0 {
				t.Errorf("no-resync got %d syncs", got)
			}
			for _, ls := range snapshotOf(t, d, "pods").Listeners {
				if ls.Name == "resync-3s" && ls.ResyncPeriod != resyncSlow {
					t.Errorf("resync-3s has period %v", ls.ResyncPeriod)
				}
			}
			quiesce(t, d)
			assertConsistent(t, d)
		})
	}
}
