package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

func snapAt(d time.Duration, modified uint64, pending int, delivered uint64) *source.Informer {
	return &source.Informer{
		Name: "pods", Taken: t0.Add(d),
		Reflector: source.Reflector{WatchModified: modified},
		Listeners: []source.Listener{{Name: "l", Pending: pending, Delivered: source.Delivered{Update: delivered}}},
	}
}

func TestHistoryRatesFromCounterDifferences(t *testing.T) {
	var h history
	h.observe(snapAt(0, 100, 0, 0))
	if p := h.latest(); p.eventRate[evModified] != 0 {
		t.Fatal("one sample cannot give a rate")
	}
	h.observe(snapAt(500*time.Millisecond, 150, 0, 0)) // too soon: ignored
	h.observe(snapAt(2*time.Second, 400, 0, 50))
	p := h.latest()
	if p.eventRate[evModified] != 150 || p.listenerRate["l"] != 25 {
		t.Fatalf("rates %v/s modified, %v/s delivered; want 150 and 25", p.eventRate[evModified], p.listenerRate["l"])
	}
	if len(h.points) != 2 {
		t.Fatalf("%d points kept, want 2 (the early sample is skipped)", len(h.points))
	}
	// A counter going down is a restarted engine: no negative rate.
	h.observe(snapAt(3*time.Second, 10, 0, 0))
	if p := h.latest(); p.eventRate[evModified] != 0 || p.listenerRate["l"] != 0 {
		t.Fatalf("rates after a counter reset: %v, %v", p.eventRate[evModified], p.listenerRate["l"])
	}
	// A clock going backwards starts the history over.
	h.observe(snapAt(time.Second, 10, 0, 0))
	if len(h.points) != 1 {
		t.Fatalf("%d points after the clock went back, want 1", len(h.points))
	}
}

func TestHistoryKeepsTheLastPoints(t *testing.T) {
	var h history
	for i := 0; i < historyPoints+15; i++ {
		h.observe(snapAt(time.Duration(i)*time.Second, uint64(i*10), i, 0))
	}
	if len(h.points) != historyPoints {
		t.Fatalf("%d points kept, want %d", len(h.points), historyPoints)
	}
	if got := h.points[0].t; !got.Equal(t0.Add(15 * time.Second)) {
		t.Fatalf("oldest point at %v, want t0+15s", got)
	}
	if s := h.series(func(p *point) float64 { return p.eventRate[evModified] }); len(s) != historyPoints-1 || s[0] != 10 {
		t.Fatalf("series %v", s)
	}
}

func TestBacklogRising(t *testing.T) {
	cases := []struct {
		pending []int
		want    bool
	}{
		{[]int{1, 2, 3, 4}, true},
		{[]int{5, 1, 2, 3, 4}, true},
		{[]int{1, 2, 3}, false}, // too short to tell
		{[]int{1, 2, 2, 3}, false},
		{[]int{4, 3, 2, 1}, false},
		{[]int{1, 2, 3, 4, 3}, false},
	}
	for _, tc := range cases {
		var h history
		for i, p := range tc.pending {
			h.observe(snapAt(time.Duration(i)*time.Second, 0, p, 0))
		}
		if got := h.rising("l"); got != tc.want {
			t.Errorf("pending %v: rising %v, want %v", tc.pending, got, tc.want)
		}
	}
}

func TestStalledListenerRules(t *testing.T) {
	var h history
	now := t0.Add(10 * time.Second)
	busy := source.Listener{Name: "busy", InCallback: source.CallbackUpdate, InCallbackSince: now.Add(-1500 * time.Millisecond)}
	stuck := source.Listener{Name: "stuck", InCallback: source.CallbackAdd, InCallbackSince: now.Add(-3 * time.Second)}
	idle := source.Listener{Name: "idle", Pending: 500}
	ranked := rankListeners([]source.Listener{idle, busy, stuck}, now, &h, 2*time.Second)
	var order []string
	for _, r := range ranked {
		order = append(order, r.stats.Name)
	}
	if !reflect.DeepEqual(order, []string{"stuck", "idle", "busy"}) {
		t.Fatalf("order %v: only stuck is over the threshold, the rest keep source order", order)
	}
	if got := ranked[0].stall.reason(ranked[0].stats, 2*time.Second); got != "in OnAdd for 3.0s" {
		t.Fatalf("reason %q", got)
	}
}

func TestSparklines(t *testing.T) {
	if got := sparkline([]float64{0, 1, 2, 4, 8}, 7); got != "  ▁▂▃▅█" {
		t.Fatalf("sparkline = %q", got)
	}
	if got := sparkline([]float64{0, 0}, 2); got != "▁▁" {
		t.Fatalf("all-zero sparkline = %q", got)
	}
	if got := sparkline([]float64{1, 2, 3}, 2); got != "▆█" {
		t.Fatalf("sparkline keeps the newest values: %q", got)
	}
	rows := sparkRows([]float64{0, 4, 8, 16}, 4, 2, 0)
	if want := []string{"   █", "▁▄██"}; !reflect.DeepEqual(rows, want) {
		t.Fatalf("sparkRows = %q, want %q", rows, want)
	}
}

// A long session's per-item events must not push the lifecycle events
// out of the log, and the overwritten entries are counted and said.
func TestEventLogKeepsLifecycleEventsAndCountsOverwrites(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	const flood = 3 * eventLogSize
	for seq := uint64(21); seq < 21+flood; seq++ {
		src.AddEvents(source.Event{Seq: seq, Time: t0.Add(7 * time.Second), Type: source.EventWatchEvent, Informer: "pods", Key: "default/web-1", Detail: "MODIFIED"})
	}
	h.frames(fixtureFrames)
	h.keys("5", "a")
	ev := h.m.views[viewEvents].(*eventsView)
	kept := map[string]bool{}
	for _, i := range ev.rows {
		kept[h.m.c.data.events.at(i).Type.String()] = true
	}
	for _, typ := range []string{"ListDone", "WatchOpen", "WatchClose", "Relist", "WatchError", "Resync", "Control"} {
		if !kept[typ] {
			t.Errorf("after %d watch events the log lost its %s event", flood, typ)
		}
	}
	// 12 of the fixture's 20 are lifecycle events (source.Event.Lifecycle);
	// its 8 per-item ones, the bookmark included, and the flood share the
	// per-item log.
	over := uint64(8 + flood - eventLogSize)
	if got := h.m.c.data.events.overwritten(); got != over {
		t.Fatalf("overwritten = %d, want %d", got, over)
	}
	// The per-item ring turning over is the log at work: the Events view
	// counts it, and says what went at the top of the log where it would
	// be; the header, on every view, does not warn of it.
	screen := h.screen()
	if !strings.Contains(screen, "│ dashboard log overflow 0") || !strings.Contains(screen, humanize.CountShort(over)+" older overwritten") {
		t.Fatalf("the view, not the header, must count the overwritten per-item entries:\n%s", screen)
	}
	if strings.Contains(screen, "were overwritten") {
		t.Fatalf("following the log's tail, the sentence on the overwritten entries takes a row:\n%s", screen)
	}
	h.keys("g")
	screen = h.screen()
	lines := strings.Split(screen, "\n")
	sentence := "↑ " + humanize.CountShort(over) + " older watch events, pops, store updates and callbacks were overwritten to keep the newest 5,000; lifecycle events are all kept."
	if len(lines) < 6 || strings.TrimSpace(lines[5]) != sentence || !strings.HasPrefix(lines[4], "TIME") {
		t.Fatalf("at the top of the log, want %q over the oldest event kept:\n%s", sentence, screen)
	}
	h.size(80, 24)
	if !strings.Contains(h.screen(), "↑ "+humanize.CountShort(over)+" older per-item events were overwritten; lifecycle events are all kept.") {
		t.Fatalf("at 80 columns the sentence is said shorter, whole:\n%s", h.screen())
	}
}

// Lifecycle events pushed out of their own log are what a note sends the
// learner to find: the header warns of them on every view.
func TestLifecycleOverflowIsWarnedInTheHeader(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	const flood = lifecycleLogSize + 30
	for seq := uint64(21); seq < 21+flood; seq++ {
		src.AddEvents(source.Event{Seq: seq, Time: t0.Add(7 * time.Second), Type: source.EventResync, Informer: "pods"})
	}
	h.frames(fixtureFrames)
	over := uint64(12 + flood - lifecycleLogSize)
	if got := h.m.c.data.logDrops(); got != over {
		t.Fatalf("logDrops = %d, want %d", got, over)
	}
	h.keys("5")
	screen := h.screen()
	if !strings.Contains(screen, "│ dashboard log overflow "+humanize.CountShort(over)) {
		t.Fatalf("the header does not warn of %d lifecycle events overwritten:\n%s", over, screen)
	}
}

// A backlog that rose for seconds and has begun to fall since the last
// point (the handler just returned) is not "rising", though the points a
// second apart still say it grew: the row must not read STALLED over a
// handler that is working through its backlog.
func TestFallingBacklogIsNotRisingBetweenPoints(t *testing.T) {
	var h history
	for i, p := range []int{100, 200, 300, 406} {
		h.observe(snapAt(time.Duration(i)*time.Second, 0, p, 0))
	}
	now := t0.Add(3500 * time.Millisecond)
	still := source.Listener{Name: "l", Pending: 410}
	if s := assessListener(&still, now, &h, time.Second); !s.stalled || !s.rising {
		t.Errorf("a backlog still growing: %+v", s)
	}
	working := source.Listener{Name: "l", Pending: 380}
	if s := assessListener(&working, now, &h, time.Second); s.stalled || s.rising {
		t.Errorf("a backlog falling since the last point reads %+v", s)
	}
}
