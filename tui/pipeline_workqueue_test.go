package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// fixtureWorkqueues are a controller's two workqueues at frame i of the
// fixture: "deployments" fills up by one key a second at 3 adds/s with
// two retries, "replicasets" takes 2 adds/s but holds four keys behind
// one item running for 45 s and more, past the stall threshold.
func fixtureWorkqueues(i int) []source.Workqueue {
	n := uint64(i)
	return []source.Workqueue{
		{Name: "deployments", Depth: int64(3 + i), Adds: 100 + 3*n, Retries: 2,
			QueueLatencyMean: 300 * time.Millisecond, QueueLatencyMax: 1200 * time.Millisecond,
			WorkDurationMean: 8 * time.Millisecond, WorkDurationMax: 40 * time.Millisecond},
		{Name: "replicasets", Depth: 4, Adds: 20 + 2*n,
			QueueLatencyMean: 2 * time.Second, QueueLatencyMax: 9 * time.Second,
			WorkDurationMean: 50 * time.Millisecond, WorkDurationMax: 45 * time.Second,
			UnfinishedWork: 45*time.Second + time.Duration(i)*time.Second, LongestRunning: 45*time.Second + time.Duration(i)*time.Second},
	}
}

// workqueueFixture is the fixture with the workqueues of every frame.
func workqueueFixture(t testing.TB, w, ht int) *harness {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(w, ht)
	for i := 0; i < fixtureFrames; i++ {
		src.SetWorkqueues(fixtureWorkqueues(i))
		h.frames(1)
	}
	return h
}

func TestGoldenPipelineWorkqueues(t *testing.T) {
	for _, sz := range goldenSizes {
		name := fmt.Sprintf("pipeline-workqueues-%dx%d", sz[0], sz[1])
		t.Run(name, func(t *testing.T) {
			got := workqueueFixture(t, sz[0], sz[1]).screen()
			assertFits(t, got, sz[0], sz[1])
			for _, want := range []string{"Workqueue   deployments", "Workqueue   replicasets", "depth 12 rising", "adds 3/s"} {
				if !strings.Contains(got, want) {
					t.Errorf("missing %q:\n%s", want, got)
				}
			}
			golden(t, name, got)
		})
	}
}

// The workqueue stage hides nothing else at any size the dashboard runs
// at: it always shows, and the lines still fit.
func TestPipelineWorkqueuesFitEverySize(t *testing.T) {
	h := workqueueFixture(t, 80, 24)
	for _, sz := range [][2]int{{60, 16}, {70, 20}, {80, 24}, {100, 30}, {120, 40}, {200, 60}} {
		h.size(sz[0], sz[1])
		got := h.screen()
		assertFits(t, got, sz[0], sz[1])
		if !strings.Contains(got, "Workqueue") {
			t.Errorf("%dx%d: no workqueue stage:\n%s", sz[0], sz[1], got)
		}
	}
	// Many queues fold into a count, flagged ones first.
	src := h.src.(*controlledSource)
	var many []source.Workqueue
	for i := 0; i < 30; i++ {
		many = append(many, source.Workqueue{Name: fmt.Sprintf("queue-%02d", i)})
	}
	many[29].Depth, many[29].LongestRunning = 1, time.Minute
	src.SetWorkqueues(many)
	h.frames(1)
	h.size(80, 24)
	got := h.screen()
	assertFits(t, got, 80, 24)
	if !strings.Contains(got, "Workqueue   queue-29") || !strings.Contains(got, "more workqueues") {
		t.Fatalf("30 queues at 80x24: want the stuck queue-29 first and a count of the rest:\n%s", got)
	}
}

// A workqueue's depth growing from tick to tick is highlighted, and its
// add rate comes from the Adds counter between ticks; the same depth
// standing still is not.
func TestPipelineWorkqueueRisingDepthAndRate(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(160, 48)
	depthLine := func() string {
		t.Helper()
		for _, l := range strings.Split(ansi.Strip(h.m.View().Content), "\n") {
			if strings.HasPrefix(l, "Workqueue   deployments") {
				return l
			}
		}
		t.Fatalf("no deployments workqueue line:\n%s", h.screen())
		return ""
	}
	q := source.Workqueue{Name: "deployments", Depth: 5, Adds: 100}
	src.SetWorkqueues([]source.Workqueue{q})
	h.frames(1)
	if l := depthLine(); !strings.Contains(l, "depth 5 ") || strings.Contains(l, "rising") || !strings.Contains(l, "adds 0/s") {
		t.Fatalf("first tick: %q; want depth 5, not rising, no rate yet", l)
	}
	// One second later: 20 more adds, 3 more keys waiting.
	q.Depth, q.Adds = 8, 120
	src.SetWorkqueues([]source.Workqueue{q})
	h.frames(1)
	if l := depthLine(); !strings.Contains(l, "⚠ depth 8 rising") || !strings.Contains(l, "adds 20/s") {
		t.Fatalf("second tick: %q; want depth 8 rising at 20 adds/s", l)
	}
	if warn := h.m.c.styles.warn.Render("⚠ depth 8 rising"); !strings.Contains(h.m.View().Content, warn) {
		t.Fatalf("the rising depth is not in the warn style %q:\n%q", warn, depthLine())
	}
	// The depth stays at 8 for the history's whole window: no longer rising.
	for i := 0; i < queueHistoryPoints; i++ {
		q.Adds += 5
		src.SetWorkqueues([]source.Workqueue{q})
		h.frames(1)
	}
	if l := depthLine(); strings.Contains(l, "rising") || strings.Contains(l, "⚠") || !strings.Contains(l, "adds 5/s") {
		t.Fatalf("steady depth: %q; want depth 8 unflagged at 5 adds/s", l)
	}
	// A worker running past the stall threshold with keys waiting flags it too.
	q.LongestRunning = h.m.c.stallAfter + time.Second
	src.SetWorkqueues([]source.Workqueue{q})
	h.frames(1)
	if l := depthLine(); !strings.Contains(l, "⚠ depth 8 stalled") || !strings.Contains(l, "longest "+humanize.Duration(q.LongestRunning)) {
		t.Fatalf("stuck worker: %q; want the depth flagged and the longest run shown", l)
	}
	// Without workqueues the stage is gone and its history forgotten.
	src.SetWorkqueues(nil)
	h.frames(1)
	if got := h.screen(); strings.Contains(got, "Workqueue") || len(h.m.c.data.wqHist) != 0 {
		t.Fatalf("workqueues gone, stage still drawn or history kept:\n%s", got)
	}
}

// BenchmarkViewPipelineWorkqueues is BenchmarkView/pipeline with a
// controller's 20 workqueues on the stage after the listeners.
func BenchmarkViewPipelineWorkqueues(b *testing.B) {
	h := bigHarness(b)
	qs := make([]source.Workqueue, 20)
	for i := range qs {
		qs[i] = fixtureWorkqueues(i)[i%2]
		qs[i].Name = fmt.Sprintf("controller-%02d", i)
	}
	h.src.(*controlledSource).SetWorkqueues(qs)
	h.frames(1)
	b.ReportAllocs()
	for b.Loop() {
		_ = h.m.View()
	}
}
