package tui

import (
	"strings"
	"testing"
	"time"
)

// A note that sends you to the Events view for some events gets those
// events listed there, not buried under per-object ones, until you choose
// a filter yourself.
func TestEventsFollowTheNarration(t *testing.T) {
	h := fixture(t, 80, 24)
	noteFrame(h, t0.Add(20*time.Second), "The server closed the watch stream.", "Events view (5): WatchClose, then WatchOpen with that resourceVersion.")
	h.keys("5")
	screen := h.screen()
	if !strings.Contains(screen, "as narrated: WatchClose, WatchOpen") {
		t.Fatalf("the Events view does not say it follows the note:\n%s", screen)
	}
	rows := 0
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.Contains(f[0], ":") || strings.Count(f[0], ".") != 1 {
			continue // not an event row
		}
		rows++
		if f[1] != "WatchClose" && f[1] != "WatchOpen" {
			t.Errorf("a %s row among the narrated events:\n%s", f[1], screen)
		}
	}
	if rows < 2 {
		t.Fatalf("the narrated events are not listed:\n%s", screen)
	}
	// t leaves the narration's list for every type.
	h.keys("t")
	if screen := h.screen(); !strings.Contains(screen, "type: all") || !strings.Contains(screen, "HandlerStart") {
		t.Fatalf("t does not list every type after the narrated list:\n%s", screen)
	}
	// A note that names no event leaves the view as it was.
	h = fixture(t, 80, 24)
	noteFrame(h, t0.Add(20*time.Second), "Listeners view (3): watch slow's backlog.")
	h.keys("5")
	if screen := h.screen(); strings.Contains(screen, "as narrated") || !strings.Contains(screen, "type: all") {
		t.Fatalf("a note naming no event changed the Events view:\n%s", screen)
	}
}

// An informer a note names has a line of its own beside the current one
// at 80 columns, with the figures a note about it points at.
func TestPipelineDrawsTheInformerANoteNames(t *testing.T) {
	h := compareHarness(t, newCompareSource(), 80, 24)
	if screen := h.screen(); strings.Contains(screen, "▸ pods-realfifo · RV") {
		t.Fatalf("a line for pods-realfifo before any note names it:\n%s", screen)
	}
	noteFrame(h, t0.Add(30*time.Second), "pods-realfifo queued the burst one row per event.")
	screen := h.screen()
	if !strings.Contains(screen, "▸ pods-realfifo · RV 2089 · watch open · 0 relists") {
		t.Fatalf("at 80×24 the note's pods-realfifo has no line:\n%s", screen)
	}
}
