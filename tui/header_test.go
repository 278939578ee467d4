package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/informtop/informtop/agent/source/sourcetest"

	"strings"
	"testing"
)

// At 80 columns every tab keeps a (short) name, and the handlers' sync
// state stays on the second line however many informers there are.
func TestHeaderAt80KeepsTabNamesAndHandlersSync(t *testing.T) {
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		for _, name := range []string{"deployments.apps-primary", "replicasets.apps-primary", "statefulsets.apps"} {
			extra := cfg.Frames[i][2]
			extra.Name = name
			cfg.Frames[i] = append(cfg.Frames[i], extra)
		}
	}
	h := newHarness(t, newControlledSource(cfg, newFixtureSource().ctl))
	h.size(80, 24)
	h.frames(fixtureFrames)
	lines := strings.Split(h.screen(), "\n")
	for _, want := range []string{"1 Pipe", "2 Queue", "3 Lstn", "4 Store", "5 Events"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("tab line lacks %q: %q", want, lines[2])
		}
	}
	if !strings.Contains(lines[1], "handlers 3/4 synced") {
		t.Fatalf("the handlers' sync state is cut from the header: %q", lines[1])
	}
	h.size(160, 48)
	if lines := strings.Split(h.screen(), "\n"); !strings.Contains(lines[2], "1 Pipeline  2 Queue  3 Listeners  4 Store  5 Events") {
		t.Fatalf("at 160 columns the tabs have their full names: %q", lines[2])
	}
}

// The header says who paused: the user, or the scenario's script.
func TestHeaderSaysWhoPaused(t *testing.T) {
	h := fixture(t, 80, 24)
	h.ctl.SetPausedState(true)
	h.frames(1)
	if !strings.Contains(h.screen(), "⏸ the scenario paused") {
		t.Fatalf("a scenario's pause is not said:\n%s", h.screen())
	}
	h.keys("space") // resume
	h.frames(1)
	if strings.Contains(h.screen(), "⏸") {
		t.Fatalf("still paused after space:\n%s", h.screen())
	}
	h.keys("space")
	if !strings.Contains(h.screen(), "⏸ you paused") {
		t.Fatalf("the user's pause is not said at once:\n%s", h.screen())
	}
	h.frames(1)
	if !strings.Contains(h.screen(), "⏸ you paused") {
		t.Fatalf("the user's pause is not said by the source:\n%s", h.screen())
	}
}

// A breadcrumb follows the tabs: informer, view, and what is open.
func TestBreadcrumb(t *testing.T) {
	h := fixture(t, 160, 48)
	h.keys("4", "/", "w", "e", "b", "enter", "enter")
	if line := strings.Split(h.screen(), "\n")[2]; !strings.HasSuffix(strings.TrimSpace(line), "pods › Store › /web › default/web-0") {
		t.Fatalf("breadcrumb reads %q", line)
	}
}

// Without colours or attributes (TERM=dumb) the selection is a ">" gutter.
func TestMonochromeMarksTheSelectedRow(t *testing.T) {
	h := fixture(t, 80, 24)
	h.send(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	h.keys("2", "j")
	lines := strings.Split(h.screen(), "\n")
	marked := 0
	for _, l := range lines[headerLines:] {
		if strings.HasPrefix(l, ">") {
			marked++
			if !strings.Contains(l, "kube-system/coredns-1") {
				t.Fatalf("the marked row is not the selected one: %q", l)
			}
		}
	}
	if marked != 1 || !strings.Contains(lines[2], "[2 Queue]") {
		t.Fatalf("want one > row and the tab in brackets, got %d:\n%s", marked, h.screen())
	}
	h.keys("4", "j")
	if !strings.Contains(h.screen(), "\n> default/web-1") && !strings.Contains(h.screen(), "\n>default/web-1") {
		t.Fatalf("the Store's selected row is not marked:\n%s", h.screen())
	}
}

// A WatchList initial list is said to be streamed wherever a list is
// described, never as a paged LIST with 0 pages.
func TestStreamedListIsSaid(t *testing.T) {
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		r := &cfg.Frames[i][0].Reflector
		r.Lists, r.ListPages, r.ListStreamed = 1, 0, true
	}
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(80, 24)
	h.frames(fixtureFrames)
	if s := h.screen(); !strings.Contains(s, "1 list (streamed (WatchList), last 600 in 1.2s)") || strings.Contains(s, "0 pages") {
		t.Fatalf("a streamed list reads as pages:\n%s", s)
	}
	for i := range cfg.Frames {
		cfg.Frames[i][0].Reflector.ListInProgress = true
	}
	h = newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(80, 24)
	h.frames(fixtureFrames)
	if s := h.screen(); !strings.Contains(s, "streaming (WatchList)…") || !strings.Contains(s, "streaming (WatchList): 600 items so far") {
		t.Fatalf("a streaming list in progress:\n%s", s)
	}
}

// The Events view's key column takes its share of the spare width: more
// than the 24 cells it had at every size.
func TestEventsKeyColumnUsesTheWidth(t *testing.T) {
	for _, tc := range []struct{ w, min int }{{80, 30}, {160, 64}, {250, 72}} {
		h := fixture(t, tc.w, 30)
		h.keys("5")
		for _, l := range strings.Split(h.screen(), "\n") {
			if i := strings.Index(l, "LISTENER/KEY"); i >= 0 {
				if got := strings.Index(l, "DETAIL") - i - 1; got < tc.min {
					t.Errorf("at %d columns the key column is %d cells, want at least %d", tc.w, got, tc.min)
				}
			}
		}
	}
}

// The compare Queue view's key columns grow with the terminal.
func TestCompareQueueKeyColumnsUseTheWidth(t *testing.T) {
	for _, tc := range []struct{ w, min int }{{160, 36}, {250, 80}} {
		h := compareHarness(t, newCompareSource(), tc.w, 48)
		h.keys("2")
		for _, l := range strings.Split(h.screen(), "\n") {
			if i := strings.Index(l, "KEY"); i >= 0 && strings.Contains(l, "DELTAS, OLDEST FIRST") {
				if got := strings.Index(l, " N DELTAS") - i; got < tc.min {
					t.Errorf("at %d columns the DeltaFIFO key column is %d cells, want at least %d:\n%s", tc.w, got, tc.min, l)
				}
			}
		}
	}
}
