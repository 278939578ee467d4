package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// pagingSource is the fixture whose pods queue can be paged, recording
// the size of every read.
type pagingSource struct {
	*controlledSource
	pager source.QueuePager
	mu    sync.Mutex
	asked []int
}

func (s *pagingSource) Controls() source.Controls {
	c := s.controlledSource.Controls()
	c.QueuePager = s
	return c
}

func (p *pagingSource) QueueRows(informer string, offset, max int) ([]source.QueueItem, int) {
	p.mu.Lock()
	p.asked = append(p.asked, max)
	p.mu.Unlock()
	return p.pager.QueueRows(informer, offset, max)
}

// The Queue view pages through the whole queue, not the snapshot's first
// 64 rows: G reaches the last row, the filter finds rows far down
// (bookmarks and relists included), and no frame reads more than a
// bounded page.
func TestQueuePagesThroughTheWholeQueue(t *testing.T) {
	const depth = 10_000
	base := newFixtureSource()
	rows := make([]source.QueueItem, depth)
	for i := range rows {
		rows[i] = source.QueueItem{Key: fmt.Sprintf("default/pod-%d", i), Types: []cache.DeltaType{cache.Updated}, Enqueued: t0}
	}
	rows[7000] = source.QueueItem{Types: []cache.DeltaType{cache.Bookmark}, Enqueued: t0}
	rows[8000] = source.QueueItem{Types: []cache.DeltaType{cache.ReplacedAll}, Enqueued: t0}
	base.ctl.SetQueueRows("pods", rows)
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		cfg.Frames[i][0].Queue.Depth, cfg.Frames[i][0].Queue.Deltas = depth, depth
	}
	src := &pagingSource{controlledSource: newControlledSource(cfg, base.ctl), pager: base.ctl}
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(2)
	h.keys("2")
	h.frames(4)
	qv := h.m.views[viewQueue].(*queueView)
	if !strings.Contains(h.screen(), "whole queue") || qv.scroll.n != depth {
		t.Fatalf("the view shows %d rows, want the whole queue of %d:\n%s", qv.scroll.n, depth, h.screen())
	}
	h.keys("G")
	h.frames(1)
	if got := rowFields(h.screen(), "default/pod-9999"); len(got) == 0 || got[0] != "10,000" {
		t.Fatalf("G does not reach the last row:\n%s", h.screen())
	}
	h.keys("g", "/")
	h.typeText("pod-9998$")
	h.keys("enter")
	if len(qv.rows) != 1 || qv.rows[0] != 9998 {
		t.Fatalf("the filter does not see past the first rows: %v", qv.rows)
	}
	h.keys("esc", "/")
	h.typeText("bookmark|replaced")
	if len(qv.rows) != 2 || qv.rows[0] != 7000 || qv.rows[1] != 8000 {
		t.Fatalf("bookmark|replaced kept %v", qv.rows)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	for _, n := range src.asked {
		if n > pagerChunk {
			t.Fatalf("a read asked for %d rows, more than a page of %d", n, pagerChunk)
		}
	}
}

// In compare mode every column pages its whole queue: the RealFIFO's 91
// rows are all there, not its first 64.
func TestCompareQueuePagesEveryColumn(t *testing.T) {
	df, rf, _ := compareQueues()
	ctl := &sourcetest.Controller{}
	ctl.SetPausedState(true)
	ctl.SetQueueRows("pods-deltafifo", df)
	ctl.SetQueueRows("pods-realfifo", rf)
	src := &pagingSource{controlledSource: newControlledSource(compareConfig(), ctl), pager: ctl}
	h := compareHarness(t, src, 160, 48)
	h.keys("2", "j")
	h.frames(1)
	screen := h.screen()
	if strings.Contains(screen, "first 64") || !strings.Contains(screen, "pods-realfifo 24 rows holding 24 deltas") {
		t.Fatalf("the RealFIFO column is still cut to its first 64 rows:\n%s", screen)
	}
	qv := h.m.views[viewQueue].(*queueView)
	if p := qv.peer("pods-realfifo"); p == nil || len(p.rows) != len(rf) {
		t.Fatalf("the peer column holds %v rows, want %d", p, len(rf))
	}
}
