package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/informtop/informtop/agent/source"
)

// Stalled and Recovered events show the listener, the key, how long the
// call ran and where it was stuck: a stall in the warning style, its
// recovery in the ok style.
func TestEventsShowStallsAndRecoveries(t *testing.T) {
	h := newHarness(t, newClientGoSource())
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("5", "g") // the cursor on the first row, whose style is the cursor's
	assertLinesInOrder(t, h.screen(), []string{
		"03:03:58.000 Stalled       controller-runtime · configmaps #2 default/slow                        OnUpdate for 2.1s, stuck in main.slowReconcile (main.go:61)",
		"03:04:01.200 Recovered     controller-runtime · configmaps #2 default/slow                        OnUpdate returned after 5.3s, was stuck in main.slowReconcile…",
	})
	st := newStyles()
	for typ, style := range map[string]string{"Stalled ": st.warn.Render("X"), "Recovered ": st.ok.Render("X")} {
		on, _, _ := strings.Cut(style, "X")
		line := rawLine(h.m.View().Content, typ)
		if on == "" || !strings.HasPrefix(line, on) {
			t.Errorf("the %s row is not drawn in its style %q: %q", strings.TrimSpace(typ), on, line)
		}
	}

	// Opened, the stall reads in full; the problems filter lists both.
	h.keys("G", "enter")
	assertLinesInOrder(t, h.screen(), []string{
		"event #6 · Stalled · 2026-01-02 03:04:03.000 · configmaps",
		"about    controller-runtime · configmaps · default/blocked",
		"detail   OnAdd for 2.0s, stuck in main.blockIfLabelled (main.go:44)",
	})
	h.keys("esc", "t", "t", "t", "t", "t")
	if s := h.screen(); !strings.Contains(s, "3 of 6 events") || !strings.Contains(s, "type: problems") {
		t.Errorf("the problems filter does not list the stalls and the recovery:\n%s", s)
	}
	h.keys("/", "m", "a", "i", "n", ".", "b", "l", "o", "c", "k", "enter")
	if s := h.screen(); !strings.Contains(s, "1 of 6 events") {
		t.Errorf("the filter does not search the stuck code:\n%s", s)
	}
}

// rawLine is the first line of a frame, colours kept, whose text contains
// marker.
func rawLine(frame, marker string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(ansi.Strip(l), marker) {
			return l
		}
	}
	return ""
}

// A stall is a lifecycle event: a busy informer's per-item events do not
// push it out of the log.
func TestEventLogKeepsStalls(t *testing.T) {
	var log eventLog
	stalled := source.Event{Seq: 1, Type: source.EventStalled, Listener: "slow", Key: "default/a", Detail: source.CallbackAdd,
		Duration: 2 * time.Second, Frame: "main.f (main.go:1)"}
	recovered := stalled
	recovered.Seq, recovered.Type, recovered.Duration = 2, source.EventRecovered, 3*time.Second
	log.add([]source.Event{stalled, recovered}, nil)
	items := make([]source.Event, 2*eventLogSize)
	for i := range items {
		items[i] = source.Event{Seq: uint64(i + 3), Type: source.EventPop, Key: "default/b"}
	}
	log.add(items, nil)
	if first, second := log.at(0), log.at(1); first.Type != source.EventStalled || second.Type != source.EventRecovered {
		t.Fatalf("the log lost the stall: it starts with %v, %v", first.Type, second.Type)
	}
	if log.items.overwritten == 0 {
		t.Fatal("the per-item ring never filled: the test proves nothing")
	}
}
