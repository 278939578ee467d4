package tui

import (
	"github.com/informtop/informtop/source/sourcetest"
	"strings"
	"testing"
)

// ":" reaches views and quits as in k9s, with completion on tab.
func TestColonCommands(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys(":")
	h.typeText("events")
	h.keys("enter")
	if h.m.active != viewEvents || h.m.switcher != nil {
		t.Fatalf(":events left view %d, prompt open %v", h.m.active, h.m.switcher != nil)
	}
	h.keys(":", "s", "t", "o", "tab")
	if got := h.m.switcher.input.Value(); got != "store" {
		t.Fatalf("tab completed sto to %q", got)
	}
	h.keys("enter")
	if h.m.active != viewStore {
		t.Fatalf(":store opened view %d", h.m.active)
	}
	h.keys(":", "3", "enter")
	if h.m.active != viewListeners {
		t.Fatalf(":3 opened view %d", h.m.active)
	}
	h.keys(":", "q", "enter")
	if !h.quit {
		t.Fatal(":q did not quit")
	}
	h = fixture(t, 80, 24)
	h.keys(":")
	h.typeText("quit")
	h.keys("enter")
	if !h.quit {
		t.Fatal(":quit did not quit")
	}
}

// ctrl+a lists the informers and every command.
func TestCtrlAListsInformersAndCommands(t *testing.T) {
	h := fixture(t, 80, 30)
	h.keys("ctrl+a")
	screen := h.screen()
	for _, want := range []string{"✓ pods", "✓ secrets", "✗ configmaps", ": pipeline", ": queue", ": listeners", ": store", ": events", ": narration", ": help", ": quit"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("ctrl+a lacks %q:\n%s", want, screen)
		}
	}
	h.keys("esc")
	if h.m.switcher != nil || h.quit {
		t.Fatal("esc should only close the list")
	}
}

// One change per second is singular.
func TestWorkloadRateIsSingularAtOne(t *testing.T) {
	h := fixture(t, 80, 24)
	h.ctl.SetRate(1 - sourcetest.RateStep)
	h.keys("+")
	if !strings.Contains(h.screen(), "workload: 1 change/s") {
		t.Fatalf("want \"1 change/s\":\n%s", h.screen())
	}
	h.keys("+")
	if !strings.Contains(h.screen(), "changes/s") {
		t.Fatalf("want changes/s above one:\n%s", h.screen())
	}
}
