package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// owingSource is the fixture that can also read a listener's backlog.
type owingSource struct {
	*controlledSource
	source.ListenerReader
}

func (s *owingSource) Controls() source.Controls {
	c := s.controlledSource.Controls()
	c.Backlog = s.ListenerReader
	return c
}

// A listener's drill-in shows what it still owes (the head of its
// backlog, oldest first), its tombstones and syncs, and when its
// registration reached HasSynced; view 3 counts tombstones per listener.
func TestListenerDrillInShowsWhatItOwes(t *testing.T) {
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		l := &cfg.Frames[i][0].Listeners[2] // audit
		l.Delivered.Delete, l.Delivered.Tombstones = 7, 4
		l.SyncedAt = t0.Add(-90 * time.Second)
	}
	base := newFixtureSource()
	src := &owingSource{controlledSource: newControlledSource(cfg, base.ctl), ListenerReader: base.ctl}
	base.ctl.SetBacklog("pods", "audit", []source.Pending{
		{Callback: source.CallbackUpdate, Key: "default/web-8"},
		{Callback: source.CallbackDelete, Key: "default/web-9"},
		{Callback: source.CallbackUpdate, Key: "default/web-10", Sync: true},
	})
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("3")
	if got := rowFields(h.screen(), "⚠ audit"); len(got) < 15 || got[14] != "4" { // BEHIND is "-" here: the fixture dates nothing
		t.Fatalf("view 3 does not count audit's tombstones in TOMB: %q\n%s", got, h.screen())
	}
	h.keys("enter")
	assertLinesInOrder(t, h.screen(), []string{
		"delivered      907  (add 660 · update 240 · delete 7 · sync 0)",
		"tombstones     4 OnDelete with a DeletedFinalStateUnknown (a delete inferred at a relist)",
		"synced         ✓ HasSynced at 03:02:35.000, 1m39s ago",
		"owes           550 notifications; next, oldest first:",
		"               OnUpdate default/web-8",
		"               OnDelete default/web-9",
		"               OnUpdate default/web-10 (resync)",
		"               … 547 more",
	})
	// Sorting by backlog puts the largest first; a second press goes back.
	h.keys("esc", "P")
	if lines := strings.Split(h.screen(), "\n"); !strings.Contains(lines[5], "audit") || !strings.Contains(lines[2], "by pending") {
		t.Fatalf("P did not sort by pending:\n%s", h.screen())
	}
	h.keys("L")
	if lines := strings.Split(h.screen(), "\n"); !strings.Contains(lines[5], "audit") || !strings.Contains(lines[6], "slow") {
		t.Fatalf("L did not sort by p99 latency:\n%s", h.screen())
	}
}
