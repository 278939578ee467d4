package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// noteFrame delivers the next frame of h's source with notes in place of
// its own, one second after the last.
func noteFrame(h *harness, at time.Time, notes ...string) {
	msg := fetchData(h.src, h.m.c.data.cursor, at)
	msg.notes = notes
	for i := range msg.snaps {
		msg.snaps[i].Taken = at
	}
	h.send(msg)
}

const longNote = "burst: processing resumed, so watch the queue drain: the RealFIFO pops one event at a time while the DeltaFIFO pops each key once with all its deltas"

// At 80×24 a scenario's note is wrapped in a panel of its own, whole; an
// error in the status line or the header never takes its place.
func TestNarrationPanelWrapsAndIsNeverHidden(t *testing.T) {
	h := fixture(t, 80, 24)
	noteFrame(h, t0.Add(20*time.Second), longNote)
	screen := h.screen()
	flat := strings.Join(strings.Fields(screen), " ")
	if !strings.Contains(flat, longNote) {
		t.Fatalf("the note is not shown whole at 80×24:\n%s", screen)
	}
	// A status error (a refused key) and a watch error (configmaps).
	h.m.setStatus("", errTest("the watch could not be dropped: nothing is watching"))
	h.keys(":", "c", "o", "n", "enter")
	screen = h.screen()
	flat = strings.Join(strings.Fields(screen), " ")
	if !strings.Contains(flat, longNote) || !strings.Contains(screen, "the watch could not be dropped") || !strings.Contains(screen, "403") {
		t.Fatalf("the note, the status and the watch error must all show:\n%s", screen)
	}
	// Inside help, the note is wrapped too.
	h.keys("?")
	flat = strings.Join(strings.Fields(strings.ReplaceAll(h.screen(), "│", " ")), " ")
	if !strings.Contains(flat, longNote) {
		t.Fatalf("help cuts the note:\n%s", h.screen())
	}
}

// Every note shown is kept; h opens them oldest first and scrolls.
func TestNarrationHistoryKeepsPastNotes(t *testing.T) {
	h := fixture(t, 80, 24)
	for i := 1; i <= 30; i++ {
		noteFrame(h, t0.Add(time.Duration(10+i)*time.Second), "step "+humanize.CountShort(i)+" of the scenario")
	}
	h.keys("h")
	screen := h.screen()
	if !strings.Contains(screen, "narration history · 31 notes, oldest first") || !strings.Contains(screen, "step 30 of the scenario") {
		t.Fatalf("h does not open the history at its end:\n%s", screen)
	}
	if strings.Contains(screen, "stalled handler: watch audit") {
		t.Fatalf("the history opened at its start, not its end:\n%s", screen)
	}
	h.keys("g")
	if screen := h.screen(); !strings.Contains(screen, "stalled handler: watch audit") || !strings.Contains(screen, "+0s") {
		t.Fatalf("g does not reach the first note with its time:\n%s", screen)
	}
	h.keys("esc")
	if h.m.notes != nil {
		t.Fatal("esc does not close the history")
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// The narration panel at both golden sizes with a scenario's real,
// multi-line notes.
func TestGoldenNarrationPanel(t *testing.T) {
	for _, sz := range goldenSizes {
		h := fixture(t, sz[0], sz[1])
		noteFrame(h, t0.Add(20*time.Second), longNote,
			"Queue view (2): compare the depth and the rows; enter shows a row's deltas.",
			"fast: 0 pending, 400 delivered · slow: 1,123 pending, 77 delivered")
		got := h.screen()
		assertFits(t, got, sz[0], sz[1])
		golden(t, "narration-panel-"+humanize.CountShort(sz[0])+"x"+humanize.CountShort(sz[1]), got)
	}
}

// A demo's notes end with live status lines that change every tick; the
// history keeps the narration, not a line per tick.
func TestNarrationHistorySkipsLiveStatusLines(t *testing.T) {
	h := fixture(t, 80, 40)
	for i := 0; i < 20; i++ {
		noteFrame(h, t0.Add(time.Duration(10+i)*time.Second), "Burst: 1,000 updates hit three hot pods.", "Watch the queue.",
			"fast: "+humanize.CountShort(i)+" pending")
	}
	noteFrame(h, t0.Add(40*time.Second), "Processing resumed: watch it drain.", "fast: 0 pending")
	h.keys("h")
	screen := h.screen()
	for _, want := range []string{"Burst: 1,000 updates hit three hot pods.", "Watch the queue.", "Processing resumed: watch it drain.", "fast: 0 pending"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the history lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "fast: 7 pending") || !strings.Contains(screen, "5 notes") {
		t.Fatalf("the history keeps ticking status lines:\n%s", screen)
	}
}

// While a step is narrated on a short terminal the narration keeps one
// line, so the step's every notification shows.
func TestNarrationMakesRoomForAStep(t *testing.T) {
	h := fixture(t, 80, 24)
	noteFrame(h, t0.Add(20*time.Second), longNote, "second line of the scenario")
	h.keys("n")
	screen := h.screen()
	if !strings.Contains(screen, "late  ← OnAdd default/web-3") || !strings.Contains(screen, "▸ burst: processing resumed") {
		t.Fatalf("the step or the narration is cut:\n%s", screen)
	}
	assertFits(t, screen, 80, 24)
	h.keys("esc")
	if !strings.Contains(h.screen(), "second line of the scenario") {
		t.Fatalf("closing the step gives the narration its rows back:\n%s", h.screen())
	}
}

// A note's status lines (from the first line that changes while it
// stands on) take only the rows the view can spare; the note stays whole
// and a changing warning under it is the first status line kept.
func TestNarrationStatusLinesGiveWay(t *testing.T) {
	h := fixture(t, 80, 24)
	note := []string{
		"Steady churn: objects change all the time and flow reflector → queue → indexer → listeners.",
		"Pipeline view (1): follow the counts hop by hop. The queue stays near empty because processing keeps up.",
	}
	frame := func(at time.Duration, n int) {
		lines := []string{note[0], note[1], "slow cannot keep up with " + humanize.CountShort(n) + " changes/s"}
		for _, r := range []string{"pods", "configmaps", "deployments.apps", "secrets"} {
			lines = append(lines, r+" · fast: 0 pending, "+humanize.CountShort(n)+" delivered · medium: 0 pending, "+humanize.CountShort(n)+" delivered")
		}
		noteFrame(h, t0.Add(at), lines...)
	}
	frame(20*time.Second, 100)
	frame(21*time.Second, 200)
	screen := h.screen()
	flat := strings.Join(strings.Fields(screen), " ")
	for _, l := range note {
		if !strings.Contains(flat, l) {
			t.Errorf("the note's line is not whole: %q\n%s", l, screen)
		}
	}
	panel := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▸ ") || strings.HasPrefix(l, "  ") && panel > 0 {
			panel++
		}
	}
	if !strings.Contains(flat, "slow cannot keep up with 200 changes/s") {
		t.Errorf("the warning under the note gave way to later status lines:\n%s", screen)
	}
	// The note's 4 rows, the warning's and one for "… more": no status
	// line beyond a quarter of the screen.
	if panel > 24/4+1 || !strings.Contains(screen, "more lines · h: narration history") {
		t.Errorf("the panel takes %d rows with its status lines:\n%s", panel, screen)
	}
}

// Rows a view leaves blank at its end go to the status lines the panel
// would otherwise hide: on the Listeners view of three listeners at 80×24
// every line shows, and the screen still fits.
func TestNarrationStatusLinesTakeTheViewsBlankRows(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("3")
	lines := []string{"Steady churn: objects change all the time.", "slow cannot keep up with 100 changes/s"}
	for _, r := range []string{"pods", "configmaps", "deployments.apps", "secrets", "services", "nodes", "leases"} {
		lines = append(lines, r+" · fast: 0 pending")
	}
	noteFrame(h, t0.Add(20*time.Second), lines...)
	lines[1] = "slow cannot keep up with 200 changes/s"
	noteFrame(h, t0.Add(21*time.Second), lines...)
	screen := h.screen()
	assertFits(t, screen, 80, 24)
	for _, l := range lines {
		if !strings.Contains(screen, l) {
			t.Errorf("%q is not shown though the view has rows to spare:\n%s", l, screen)
		}
	}
	if strings.Contains(screen, "more lines") {
		t.Errorf("the panel hides lines beside blank rows:\n%s", screen)
	}
}
