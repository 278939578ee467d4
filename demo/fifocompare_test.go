package demo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

func TestFIFOCompare(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "fifo-compare", Seed: 8, Objects: 40, Rate: 300, TimeScale: 0.01})
	g := holdSteps(d, "pause", "resume", "loop")
	atPause, atBurst := claimBurstQueued(compareBurst)
	notes := watchNotes(d, map[string]claim{
		"intro": claimAll(claimSynced, func(d *Demo) (bool, string) {
			note := strings.Join(d.Notes(), " ")
			return strings.Contains(note, "never use it (the InOrderInformers gate is GA and locked on)"), fmt.Sprintf("note %q does not say v0.37's informers never use a DeltaFIFO", note)
		}),
		"pause":  atPause,
		"burst":  claimAll(claimPaused, atBurst),
		"resume": claimQueuesEmpty,
		"drained": claimAll(claimCaughtUp, func(d *Demo) (bool, string) {
			for _, e := range d.Informers() {
				if diff := d.storeDiff(e); diff != "" {
					return false, diff
				}
			}
			df, rf := snapshotOf(t, d, "pods-deltafifo"), snapshotOf(t, d, "pods-realfifo")
			for _, name := range []string{"fast", "slow"} {
				if a, b := listenerStats(t, df, name).Delivered, listenerStats(t, rf, name).Delivered; a != b {
					return false, fmt.Sprintf("%s got %+v from DeltaFIFO, %+v from RealFIFO", name, a, b)
				}
			}
			return true, ""
		}),
	})
	start(t, d)

	// Churn runs through both informers until the script pauses them; the
	// test stops it there so the burst is all that is queued.
	g.await(t, "pause")
	quiesce(t, d)
	before := map[string]source.Informer{}
	for _, s := range d.States() {
		before[s.Name] = s
	}
	server := d.cluster.Snapshot(cluster.Pods)
	g.let("pause")
	g.await(t, "resume")
	hot := changedKeys(server, d.cluster.Snapshot(cluster.Pods))
	if len(hot) == 0 || len(hot) > 3 {
		t.Fatalf("the burst changed %d pods, want one to three hot ones", len(hot))
	}
	waitfor.Seen(t, "the burst reaching both queues", func() (bool, string) {
		for _, s := range d.States() {
			if n := s.Queue.Added.Updated - before[s.Name].Queue.Added.Updated; n != compareBurst {
				return false, s.Name + " has queued " + humanize.Count(n)
			}
		}
		return true, ""
	})
	df, rf := snapshotOf(t, d, "pods-deltafifo"), snapshotOf(t, d, "pods-realfifo")
	if df.QueueKind != source.DeltaFIFO || rf.QueueKind != source.RealFIFO {
		t.Fatalf("queue kinds %s and %s", df.QueueKind, rf.QueueKind)
	}
	// Same updates, different queues: one row per hot pod against one row
	// per event.
	checkPausedBurst(t, d, df.Name, before[df.Name], df, hot, compareBurst)
	checkPausedBurst(t, d, rf.Name, before[rf.Name], rf, hot, compareBurst)

	g.let("resume")
	g.await(t, "loop")
	notes.check(t, "intro", "pause", "burst", "resume", "drained")
	// Both informers were told exactly the same, listener by listener.
	quiesce(t, d)
	assertConsistent(t, d)
	df, rf = snapshotOf(t, d, "pods-deltafifo"), snapshotOf(t, d, "pods-realfifo")
	for _, name := range []string{"fast", "slow"} {
		a, b := listenerStats(t, df, name).Delivered, listenerStats(t, rf, name).Delivered
		if a != b {
			t.Errorf("%s: DeltaFIFO delivered %+v, RealFIFO %+v", name, a, b)
		}
		if a.Update < compareBurst || a.Delete == 0 {
			t.Errorf("%s delivered %+v: the churn and the burst should both show", name, a)
		}
	}
}
