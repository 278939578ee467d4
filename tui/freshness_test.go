package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// Is it fresh, what does it cost: a watch open for twenty minutes that
// last heard from the server 11 minutes ago, past the 10m15s by which the
// server must end an open watch, is SILENT in the header, with the
// sentence on the third line and in the switcher; the API server stage
// shows the ages; a handler whose oldest pending notification waited 42 s
// is 42s BEHIND in view 3; the Store view says what the cache costs.
func TestFreshnessAndMemoryOnScreen(t *testing.T) {
	cfg := clusterConfig()
	for i := range cfg.Frames {
		s := &cfg.Frames[i][0] // pods
		r := &s.Reflector
		r.WatchOpen, r.WatchSince = true, s.Taken.Add(-20*time.Minute)
		r.LastEventTime, r.LastBookmarkTime = s.Taken.Add(-11*time.Minute), s.Taken.Add(-11*time.Minute-15*time.Second)
		r.LastHeard = r.LastEventTime
		s.Listeners[0].OldestPendingSince = s.Taken.Add(-42 * time.Second)
		s.Memory = source.Memory{Objects: 60, Sampled: 32, BytesPerObject: 3000, EstimatedBytes: 180000,
			ByField:           map[string]float64{source.FieldSpec: 120000, source.FieldStatus: 60000},
			SavedByTransforms: map[string]float64{source.TransformStripManagedFields: 150000}}
	}
	src := sourcetest.NewVerifying(sourcetest.NewCluster(sourcetest.New(cfg), nil))
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	screen := h.screen()
	lines := strings.Split(screen, "\n")
	if !strings.Contains(lines[0], "SILENT 11m0s") {
		t.Errorf("title line: %q", lines[0])
	}
	if !strings.Contains(lines[2], "⚠ silent: nothing from the server for 11m0s (limit 10m15s") || !strings.Contains(lines[2], "the cache may be stale — v compares it") {
		t.Errorf("third line: %q", lines[2])
	}
	if !strings.Contains(screen, "event 11m0s ago · bookmark 11m15s ago") {
		t.Errorf("the API server stage lacks the ages:\n%s", screen)
	}
	h.keys("3")
	name := cfg.Frames[0][0].Listeners[0].Name
	if got := rowFields(h.screen(), name); len(got) < 3 || got[2] != "42s" {
		t.Errorf("view 3 row of %s: %q, want 42s BEHIND", name, got)
	}
	h.keys("4")
	if !strings.Contains(h.screen(), "~180 kB (3.0 kB/object, spec 67%) · stripManagedFields saved 150 kB") {
		t.Errorf("the Store view does not say what the cache costs:\n%s", h.screen())
	}
	h.keys(":")
	if !strings.Contains(h.screen(), "silent: nothing from the server") {
		t.Errorf("the switcher does not say pods is silent:\n%s", h.screen())
	}
}

// What the API server says about the resource stands under the API server
// stage: its watch cache's figures, or the sentence saying why there are
// none.
func TestServerFiguresUnderTheAPIServerStage(t *testing.T) {
	cfg := clusterConfig()
	cfg.Server = map[string]source.ServerStats{
		"pods":    {Available: true, WatchCacheResourceVersion: "49500", WatchCacheCapacity: 100, EventsReceived: 7015, EventsDispatched: 7012, WatchEventsSent: 9120, TerminatedWatchers: 1, From: "https://10.0.0.1:6443"},
		"secrets": {Reason: "the API server's watch-cache figures need get on the non-resource URL /metrics, which you may not (RBAC; the ClusterRole system:monitoring grants it)"},
	}
	h := newHarness(t, sourcetest.NewCluster(sourcetest.New(cfg), nil))
	h.size(160, 48)
	h.frames(fixtureFrames)
	containsInOrder(t, h.screen(), "API server  pods", "watch cache at RV 49500, window 100 events · 7,015 received, 7,012 dispatched · 9,120 sent to watch clients · 1 terminated watcher", "Reflector")
	h.keys(":")
	h.typeText("secrets")
	h.keys("enter")
	containsInOrder(t, h.screen(), "API server  secrets", "the API server's watch-cache figures need get on the non-resource URL /metrics", "Reflector")
}

// containsInOrder checks that each of want is in a line of screen, each
// on a line after the previous one's.
func containsInOrder(t *testing.T, screen string, want ...string) {
	t.Helper()
	i := 0
	for _, l := range strings.Split(screen, "\n") {
		if i < len(want) && strings.Contains(l, want[i]) {
			i++
		}
	}
	if i < len(want) {
		t.Fatalf("%q not found (in order) on screen:\n%s", want[i], screen)
	}
}

// At 80 columns the sentence saying why the server's figures are missing
// is wrapped under the stage, whole: it names what to grant.
func TestServerSentenceWrapsAt80Columns(t *testing.T) {
	cfg := clusterConfig()
	why := "the API server's watch-cache figures need get on the non-resource URL /metrics, which you may not (RBAC; the ClusterRole system:monitoring grants it)"
	cfg.Server = map[string]source.ServerStats{"pods": {Reason: why}}
	h := newHarness(t, sourcetest.NewCluster(sourcetest.New(cfg), nil))
	h.size(80, 24)
	h.frames(fixtureFrames)
	screen := h.screen()
	assertFits(t, screen, 80, 24)
	var said []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "            ") && !strings.Contains(l, "▼") {
			said = append(said, strings.TrimSpace(l))
		}
	}
	if got := strings.Join(said, " "); !strings.Contains(got, why) {
		t.Fatalf("the server's sentence is not there whole (%q):\n%s", got, screen)
	}
}
