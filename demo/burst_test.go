package demo

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

func TestBurst(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.DeltaFIFO, source.RealFIFO} {
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
			waitfor.Seen(t, "the initial adds being handled", func() (bool, string) {
				return listenersIdle(d), "listeners busy"
			})
			if !d.Paused() {
				t.Fatal("the script should have paused processing before the burst")
			}
			server := d.cluster.Snapshot(cluster.Pods)
			before := snapshotOf(t, d, "pods")
			delivered := map[string]source.Delivered{}
			for _, ls := range before.Listeners {
				delivered[ls.Name] = ls.Delivered
			}
			g.let("burst")
			g.await(t, "resume processing")

			hot := changedKeys(server, d.cluster.Snapshot(cluster.Pods))
			if len(hot) == 0 || len(hot) > 3 {
				t.Fatalf("the burst changed %d pods, want one to three hot ones", len(hot))
			}
			waitfor.Seen(t, "the burst reaching the queue", func() (bool, string) {
				n := snapshotOf(t, d, "pods").Queue.Added.Updated - before.Queue.Added.Updated
				return n == burstSize, "updates queued: " + humanize.Count(n)
			})
			checkPausedBurst(t, d, "pods", before, snapshotOf(t, d, "pods"), hot, burstSize)

			g.let("resume processing")
			waitfor.Seen(t, "the queue and the listeners draining", func() (bool, string) {
				s := snapshotOf(t, d, "pods")
				return drained(d), "depth " + humanize.Count(s.Queue.Depth)
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

// The user's pause wins: once you pause, the script never resumes
// processing; it goes on only after you resume.
func TestBurstUserPauseWins(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "burst", Seed: 2, Objects: 20, Rate: -1, TimeScale: 0.001})
	g := holdSteps(d, "resume processing")
	notes := watchNotes(d, map[string]claim{"resume processing": claimQueuesEmpty})
	start(t, d)
	g.await(t, "resume processing")
	if by := d.Pull(0, 0).PausedBy; by != source.PausedByScenario {
		t.Fatalf("before the user acts, PausedBy = %q, want the scenario", by)
	}
	mustOK(t, d.SetPaused(true)) // the user presses space... and again: paused by you
	if by := d.Pull(0, 0).PausedBy; by != source.PausedByYou {
		t.Fatalf("after the user paused, PausedBy = %q", by)
	}
	g.let("resume processing")
	waitfor.Seen(t, "the script deferring to the user", func() (bool, string) {
		for _, e := range d.Events().Recent(-1) {
			if strings.Contains(e.Detail, "you paused processing, so the script leaves it paused") {
				return true, ""
			}
		}
		return false, "no such event"
	})
	if f := d.Pull(0, 0); !f.Paused || f.PausedBy != source.PausedByYou {
		t.Fatalf("the script resumed processing the user had paused: paused %v by %q", f.Paused, f.PausedBy)
	}
	mustOK(t, d.SetPaused(false))
	notes.await(t, "resume processing")
	notes.check(t)
}
