package demo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

func TestStalledListener(t *testing.T) {
	t.Parallel()
	// Enough objects that slow's initial list takes longer than the
	// script's wait before the stall: the stall must wait for its sync.
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 3, Objects: 1000, Rate: 300, TimeScale: 0.01})
	for _, l := range d.Listeners("pods") {
		l.KeepSequence(true)
	}
	g := holdSteps(d, "resume slow", "loop")
	notes := watchNotes(d, map[string]claim{
		"intro": claimSynced,
		"stall slow": func(d *Demo) (bool, string) {
			ls := listenerStats(t, snapshotOf(t, d, "pods"), "slow")
			if !ls.Synced || ls.SyncedAt.IsZero() || !d.Listener("pods", "slow").Stalled() || ls.InCallback == "" {
				return false, fmt.Sprintf("slow synced %v (at %v), stalled %v, in %q", ls.Synced, ls.SyncedAt, d.Listener("pods", "slow").Stalled(), ls.InCallback)
			}
			return true, ""
		},
		"resume slow": func(d *Demo) (bool, string) { return !d.Listener("pods", "slow").Stalled(), "slow is still stalled" },
		"drained":     claimCaughtUp,
	})
	start(t, d)
	g.await(t, "resume slow")
	if note := d.Notes()[0]; !strings.Contains(note, "slow listener is stalled") {
		t.Errorf("while stalled the headline is %q", note)
	}
	if !d.Listener("pods", "slow").Stalled() {
		t.Fatal("the script did not stall slow")
	}

	// Its backlog grows while it is stalled…
	first := 0
	waitfor.Seen(t, "slow's backlog building up", func() (bool, string) {
		first = listenerStats(t, snapshotOf(t, d, "pods"), "slow").Pending
		return first >= 20, fmt.Sprintf("pending %d", first)
	})
	waitfor.Seen(t, "slow's backlog growing", func() (bool, string) {
		p := listenerStats(t, snapshotOf(t, d, "pods"), "slow").Pending
		return p > first, fmt.Sprintf("pending %d, was %d", p, first)
	})
	// …while the others stay current: with the churn stopped they reach
	// zero and the cache matches the server, but slow stays stuck.
	d.work.hold()
	waitfor.Seen(t, "fast and medium current", func() (bool, string) {
		// In this order: what the server changed is in the cache, so
		// once drained it was handed to the listeners, whose state is
		// read last.
		if diff := d.storeDiff(d.Informer("pods")); diff != "" {
			return false, diff
		}
		if !queuesDrained(d) {
			return false, "work queued or being processed"
		}
		s := snapshotOf(t, d, "pods")
		for _, name := range []string{"fast", "medium"} {
			if ls := listenerStats(t, s, name); ls.Pending != 0 || ls.InCallback != "" {
				return false, fmt.Sprintf("%s: %d pending, in %q", name, ls.Pending, ls.InCallback)
			}
		}
		return true, ""
	})
	s := snapshotOf(t, d, "pods")
	slow, fast := listenerStats(t, s, "slow"), listenerStats(t, s, "fast")
	if slow.InCallback == "" {
		t.Fatal("slow is not inside a callback while stalled")
	}
	// Everything fast got is either delivered to slow, waiting in its
	// backlog, or the one call it is stuck in.
	if got := slow.Delivered.Total() + uint64(slow.Pending) + 1; got != fast.Delivered.Total() {
		t.Errorf("slow: %d delivered + %d pending + 1 in progress = %d, fast delivered %d",
			slow.Delivered.Total(), slow.Pending, got, fast.Delivered.Total())
	}
	if slow.HighWater < slow.Pending {
		t.Errorf("slow's high water %d is below its backlog %d", slow.HighWater, slow.Pending)
	}
	stuck := slow.Pending

	// Resumed, it drains to zero with nothing lost.
	g.let("resume slow")
	waitfor.Seen(t, "slow draining", func() (bool, string) {
		ls := listenerStats(t, snapshotOf(t, d, "pods"), "slow")
		return ls.Pending == 0 && ls.InCallback == "", fmt.Sprintf("pending %d, in %q", ls.Pending, ls.InCallback)
	})
	s = snapshotOf(t, d, "pods")
	want := listenerStats(t, s, "fast").Delivered
	for _, name := range []string{"medium", "slow"} {
		if got := listenerStats(t, s, name).Delivered; got != want {
			t.Errorf("%s delivered %+v, fast %+v", name, got, want)
		}
	}
	if hw := listenerStats(t, s, "slow").HighWater; hw < stuck {
		t.Errorf("slow's high water %d, but its backlog reached %d", hw, stuck)
	}
	// The stall reordered, lost or repeated nothing: slow's sequence of
	// callbacks is exactly fast's.
	if fastCalls, slowCalls := d.Listener("pods", "fast").Record().Calls, d.Listener("pods", "slow").Record().Calls; !slices.Equal(slowCalls, fastCalls) {
		t.Errorf("slow handled %d calls, not the same sequence as fast's %d", len(slowCalls), len(fastCalls))
	}
	assertConsistent(t, d)
	g.await(t, "loop")
	notes.check(t, "intro", "stall slow", "resume slow", "drained")
}
