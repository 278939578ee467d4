package tui

import (
	"strings"
	"testing"
)

// Where the dashboard names an informer's queue, client-go's own says
// whose it is, and figures it does not report are not drawn as zeros:
// no deltas, flow, cache changes or indexes, and no memory estimate to
// wait for. The engine's informer beside it is shown as before.
func TestClientGoInformerSaysWhoseItIs(t *testing.T) {
	h := newHarness(t, newClientGoSource())
	h.size(160, 48)
	h.frames(fixtureFrames)
	screen := h.screen()
	lines := strings.Split(screen, "\n")
	if !strings.HasPrefix(lines[0], "informtop · configmaps(all)[12] RealFIFO · client-go · watch up") {
		t.Errorf("the header does not say client-go: %q", lines[0])
	}
	for _, want := range []string{
		"Queue       RealFIFO · client-go · depth and rows not visible from outside",
		"Indexer     12 objects\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the pipeline lacks %q:\n%s", want, screen)
		}
	}
	for _, unwanted := range []string{"0 deltas", "in 0/s", "0 added", "no indexes"} {
		if strings.Contains(screen, unwanted) {
			t.Errorf("the pipeline shows %q for client-go's informer:\n%s", unwanted, screen)
		}
	}
	h.keys("4")
	if summary := strings.Split(h.screen(), "\n")[3]; summary != "12 objects · memory not estimated for client-go's own informer" {
		t.Errorf("the store's summary: %q", summary)
	}
	h.keys(":")
	if s := h.screen(); !strings.Contains(s, "RealFIFO · client-go") {
		t.Errorf("the switcher does not say client-go:\n%s", s)
	}
	h.keys("p", "o", "d", "s", "enter", "1")
	screen = h.screen()
	if first := strings.Split(screen, "\n")[0]; !strings.HasPrefix(first, "informtop · pods(all)[60] RealFIFO · watch up") {
		t.Errorf("the engine's informer is named as client-go's: %q", first)
	}
	if !strings.Contains(screen, "Queue       RealFIFO · depth 42 · oldest 1.5s · in") {
		t.Errorf("the engine's queue line changed:\n%s", screen)
	}
}

// Compared with an engine's informer of the same resource, client-go's
// says in its column what it does not show.
func TestClientGoInformerCompared(t *testing.T) {
	cfg := clientGoConfig()
	for _, f := range cfg.Frames {
		f[1].Resource = "configmaps" // pods' engine now watches configmaps too
	}
	h := newHarness(t, newClientGoSourceOf(cfg))
	h.size(160, 48)
	h.frames(fixtureFrames)
	screen := h.screen()
	for _, want := range []string{"▸ configmaps · RealFIFO · client-go · ✓ synced", "Queue       depth 3",
		"client-go's own: rows and flow not shown", "configmaps 3 rows, deltas not counted · pods 42 rows for 42 deltas"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the compared pipeline lacks %q:\n%s", want, screen)
		}
	}
	h.keys("2")
	screen = h.screen()
	for _, want := range []string{"3 rows · client-go's own: rows not shown", "client-go's own informer keeps its queue to itself", "default/web-0"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the compared queues lack %q:\n%s", want, screen)
		}
	}
}
