package demo

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/processor"
)

func TestBurst(t *testing.T) {
	t.Parallel()
	for _, q := range []engine.QueueKind{engine.DeltaFIFO, engine.RealFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "burst", Seed: 2, Queue: q, Objects: 40, Rate: -1, TimeScale: 0.001})
			g := holdSteps(d, "burst", "resume processing", "loop")
			start(t, d)

			g.await(t, "burst")
			eventually(t, "the initial adds being handled", func() (bool, string) {
				return listenersIdle(d), "listeners busy"
			})
			if !d.Paused() {
				t.Fatal("the script should have paused processing before the burst")
			}
			server := d.cluster.Snapshot(cluster.Pods)
			before := snapshotOf(t, d, "pods")
			delivered := map[string]processor.Delivered{}
			for _, ls := range before.Listeners {
				delivered[ls.Name] = ls.Delivered
			}
			g.let("burst")
			g.await(t, "resume processing")

			hot := changedKeys(server, d.cluster.Snapshot(cluster.Pods))
			if len(hot) == 0 || len(hot) > 3 {
				t.Fatalf("the burst changed %d pods, want one to three hot ones", len(hot))
			}
			eventually(t, "the burst reaching the queue", func() (bool, string) {
				n := snapshotOf(t, d, "pods").Queue.Added.Updated - before.Queue.Added.Updated
				return n == burstSize, "updates queued: " + count(n)
			})
			s := snapshotOf(t, d, "pods")
			// Pausing holds the pop loop at its next pop; one pop that was
			// already waiting for an item when the pause came may still
			// take the first arrivals (a DeltaFIFO row or a RealFIFO batch
			// of unique keys).
			leaked := s.Queue.Popped.Updated - before.Queue.Popped.Updated
			queued := s.Queue.Added.Updated - s.Queue.Popped.Updated
			if leaked > 3 || queued != burstSize-leaked {
				t.Fatalf("while paused %d updates left the queue and %d stayed; want at most 3 and the rest of %d", leaked, queued, burstSize)
			}
			switch q {
			case engine.DeltaFIFO:
				// Many updates, one row per hot key.
				if s.Queue.Depth != len(hot) {
					t.Errorf("DeltaFIFO holds %d rows, want one per hot key (%d)", s.Queue.Depth, len(hot))
				}
				held := 0
				for _, key := range hot {
					for _, delta := range d.entry("pods").inf.QueueDeltas(key) {
						if delta.Type != cache.Updated {
							t.Errorf("queued delta for %s is %s, want Updated", key, delta.Type)
						}
						held++
					}
				}
				if uint64(held) != queued {
					t.Errorf("the hot keys' rows hold %d deltas, want %d", held, queued)
				}
				rows := uint64(s.Queue.Depth)
				if leaked > 0 {
					rows++ // the row the leaked pop took
				}
				if got := s.Queue.Coalesced - before.Queue.Coalesced; got != burstSize-rows {
					t.Errorf("coalesced %d deltas, want %d", got, burstSize-rows)
				}
			case engine.RealFIFO:
				// Every update is its own row (bookmarks may sit among them).
				if uint64(s.Queue.Depth) < queued {
					t.Errorf("RealFIFO holds %d rows, want at least %d", s.Queue.Depth, queued)
				}
				if s.Queue.Coalesced != 0 {
					t.Errorf("RealFIFO coalesced %d deltas", s.Queue.Coalesced)
				}
			}

			g.let("resume processing")
			eventually(t, "the queue and the listeners draining", func() (bool, string) {
				s := snapshotOf(t, d, "pods")
				return s.Queue.Depth == 0 && listenersIdle(d), "depth " + count(s.Queue.Depth)
			})
			after := snapshotOf(t, d, "pods")
			for _, ls := range after.Listeners {
				want := delivered[ls.Name]
				want.Update += burstSize
				if ls.Delivered != want {
					t.Errorf("%s delivered %+v after the burst, want %+v (every update, coalesced or not)", ls.Name, ls.Delivered, want)
				}
			}
			assertConsistent(t, d)
		})
	}
}

// changedKeys lists the keys whose resourceVersion differs between two
// server snapshots of the same objects.
func changedKeys(before, after map[string]runtime.Object) []string {
	var keys []string
	for k, obj := range after {
		if old, ok := before[k]; ok && resourceVersion(old) != resourceVersion(obj) {
			keys = append(keys, k)
		}
	}
	return keys
}
