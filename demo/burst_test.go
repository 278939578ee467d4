package demo

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/processor"
	"github.com/informtop/informtop/internal/humanize"
)

func TestBurst(t *testing.T) {
	t.Parallel()
	for _, q := range []engine.QueueKind{engine.DeltaFIFO, engine.RealFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "burst", Seed: 2, Queue: q, Objects: 40, Rate: -1, TimeScale: 0.001})
			g := holdSteps(d, "burst", "resume processing", "loop")
			atPause, atBurst := claimBurstQueued(burstSize)
			notes := watchNotes(d, map[string]claim{
				"intro":             claimSynced,
				"pause processing":  atPause,
				"burst":             claimAll(claimPaused, atBurst),
				"resume processing": claimQueuesEmpty,
				"drained":           claimCaughtUp,
			})
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
				return n == burstSize, "updates queued: " + humanize.Count(n)
			})
			checkPausedBurst(t, d, "pods", before, snapshotOf(t, d, "pods"), hot, burstSize)

			g.let("resume processing")
			eventually(t, "the queue and the listeners draining", func() (bool, string) {
				s := snapshotOf(t, d, "pods")
				return s.Queue.Depth == 0 && listenersIdle(d), "depth " + humanize.Count(s.Queue.Depth)
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
			g.await(t, "loop")
			notes.check(t, "intro", "pause processing", "burst", "resume processing", "drained")
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
