package tui

import (
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// A stalled client-go listener's drill-in names the code its call is
// stuck in, says once that its backlog is a lower bound, and claims no
// buffer capacity it does not know.
func TestClientGoListenerDrillInNamesTheStuckCode(t *testing.T) {
	h := newHarness(t, newClientGoSource())
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("3", "enter")
	screen := h.screen()
	assertLinesInOrder(t, screen, []string{
		"pending        ≥8 (high-water 10)",
		"               client-go's own informer: its backlog is counted from outside, a",
		"               lower bound",
		"in callback    OnAdd default/blocked for 13s",
		"               stuck in main.blockIfLabelled (main.go:44)",
	})
	if n := strings.Count(screen, "counted from outside"); n != 1 {
		t.Errorf("the lower bound is explained %d times, want once:\n%s", n, screen)
	}
	if strings.Contains(screen, "capacity") {
		t.Errorf("an unknown capacity is shown:\n%s", screen)
	}

	// A wider screen has room for the file's whole path.
	h.size(160, 48)
	assertLinesInOrder(t, h.screen(), []string{
		"listener controller-runtime · configmaps  ⚠ STALLED: in OnAdd for 13s, stuck in main.blockIfLabelled",
		"               stuck in main.blockIfLabelled (/home/dev/informtop/examples/controller-runtime/main.go:44)",
	})
}

// The table shows the stuck code in its own column where it fits, and on
// the summary line where it does not; pending counts from outside read
// "≥N", unknown capacities "–", and long names keep their ends.
func TestClientGoListenerTable(t *testing.T) {
	h := newHarness(t, newClientGoSource())
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("3")
	screen := h.screen()
	if !strings.Contains(screen, "STUCK IN") {
		t.Fatalf("no STUCK IN column at 160 columns:\n%s", screen)
	}
	got := rowFields(screen, "⚠ controll")
	if want := []string{"≥8", "13s", "–", "10"}; len(got) < 10 || !equalFrom(got, 4, want) {
		t.Errorf("stalled row %q, want PENDING BEHIND CAP HIGH %q", got, want)
	}
	if !strings.Contains(strings.Join(got, " "), "OnAdd 13s main.blockIfLabelled") {
		t.Errorf("the stalled row does not name the stuck code: %q", got)
	}
	if !strings.Contains(screen, "  controll…me · configmaps #2 ") {
		t.Errorf("the second controller-runtime listener lost its \" #2\":\n%s", screen)
	}
	if !strings.Contains(screen, "github.com/…/agen…StuckCode") {
		t.Errorf("the long Go name is not cut in its middle:\n%s", screen)
	}

	h.size(80, 24)
	screen = h.screen()
	if strings.Contains(screen, "STUCK IN") {
		t.Errorf("the STUCK IN column takes room at 80 columns:\n%s", screen)
	}
	summary := strings.Split(screen, "\n")[3]
	if !strings.HasSuffix(summary, ": stuck in main.blockIfLabelled") {
		t.Errorf("the summary line does not name the stuck code: %q", summary)
	}
	for _, end := range []string{"configmaps", "figmaps #2", "eStuckCode"} {
		if !strings.Contains(screen, "…"+end+" ") {
			t.Errorf("no name ends in %q:\n%s", end, screen)
		}
	}
}

// equalFrom reports whether got[at:] starts with want.
func equalFrom(got []string, at int, want []string) bool {
	if len(got) < at+len(want) {
		return false
	}
	for i, w := range want {
		if got[at+i] != w {
			return false
		}
	}
	return true
}

// Where the source reads backlogs, a client-go listener's is not asked
// for: the drill-in says why instead.
func TestClientGoListenerBacklogIsNotRead(t *testing.T) {
	src := newClientGoCluster()
	src.Ctl.SetBacklog("configmaps", "controller-runtime · configmaps", []source.Pending{{Callback: source.CallbackAdd, Key: "default/next"}})
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("3", "enter")
	screen := h.screen()
	if n := h.deliveries(listenerBacklogMsg{}); n != 0 {
		t.Errorf("the backlog of a client-go listener was read %d times", n)
	}
	if strings.Contains(screen, "default/next") || !strings.Contains(screen, "owes           not listed: client-go's own informer keeps its backlog to itself") {
		t.Errorf("the drill-in does not say the backlog is not listed:\n%s", screen)
	}
}

// The pipeline's listener branches show the same lower bounds.
func TestClientGoPipelineShowsLowerBounds(t *testing.T) {
	h := newHarness(t, newClientGoSource())
	h.size(160, 48)
	h.frames(fixtureFrames)
	screen := h.screen()
	for _, want := range []string{"≥8     0/s  STALLED in OnAdd for 13s, stuck in main.blockIfLabelled", "≥0     1/s  ✓ synced", "≥2     1/s  ✓ synced"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the pipeline lacks %q:\n%s", want, screen)
		}
	}
}

// With a long handler name and more to say, the summary line at 80
// columns gives up the name's middle before the stuck code.
func TestStalledSummaryKeepsTheStuckCode(t *testing.T) {
	cfg := clientGoConfig()
	for _, f := range cfg.Frames {
		f[0].Listeners[0].Name = "main.blockIfLabelled+main.main.func1" // as client-go names a handler of funcs
		f[0].Listeners[1].Synced = false
	}
	h := newHarness(t, newClientGoSourceOf(cfg))
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("3")
	if summary := strings.Split(h.screen(), "\n")[3]; summary != "3 listeners · 1 syncing · ⚠ STALLED main…in.func1: stuck in main.blockIfLabelled" {
		t.Errorf("summary: %q", summary)
	}
}
