package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// A snapshot carries only the first rows of a queue. When the source is a
// source.QueuePager the Queue view keeps a copy of the whole queue
// instead, read a bounded page at a time off the UI goroutine: every frame
// re-reads the rows around the cursor (what is on screen is current) and
// the next chunk of a sweep over the rest (so G, the filter and the
// counts see the whole queue, a few frames old at worst).
const (
	// pagerChunk is the sweep's read per frame: 40k rows a second at the
	// default refresh.
	pagerChunk = 4096
	// pagerMargin is how many rows around the window are re-read.
	pagerMargin = 64
)

// queueMirror is the Queue view's copy of one informer's whole queue.
type queueMirror struct {
	informer string
	items    []source.QueueItem // in pop order; rows not read yet have no types
	total    int
	sweep    int  // where the next sweep chunk starts
	ready    bool // one read has arrived: items stand for the queue
}

// queueRowsMsg delivers one frame's reads, one entry per queue shown.
type queueRowsMsg []queueRows

// queueRows is one frame's reads of one informer's queue.
type queueRows struct {
	informer string
	reads    []queueRead
}

type queueRead struct {
	offset int
	rows   []source.QueueItem
	total  int
}

// pageRequest is what one frame reads of one queue: a window and the
// sweep's next chunk.
type pageRequest struct {
	informer    string
	start, size int
	sweep       int
}

// pagerCmd reads, for every queue shown, the rows around what is drawn
// and the sweep's next chunk; nil when the source cannot page. client-go's
// own informers are left out: their queues cannot be read.
func (v *queueView) pagerCmd() tea.Cmd {
	p := v.c.caps.pager
	if p == nil {
		return nil
	}
	var shown []string
	if v.c.comparing() {
		for _, s := range v.c.compared() {
			if !isClientGo(s) {
				shown = append(shown, s.Name)
			}
		}
	} else if !isClientGo(v.c.snap()) {
		shown = append(shown, v.c.data.current)
	}
	if len(shown) == 0 {
		v.mirrors = nil
		return nil // client-go's own informers have no rows to page
	}
	keep := make(map[string]*queueMirror, len(shown))
	var reqs []pageRequest
	for _, inf := range shown {
		m := v.mirrors[inf]
		if m == nil {
			m = &queueMirror{informer: inf}
		}
		keep[inf] = m
		// The focused queue's window follows the cursor; a peer's is its
		// top, the sweep brings the rest.
		start := 0
		if inf == v.c.data.current {
			if lo, _ := v.scroll.window(); lo < len(v.rows) {
				start = v.rows[lo]
			} else if v.filter.query() == "" {
				start = v.scroll.offset
			}
		}
		reqs = append(reqs, pageRequest{informer: inf, start: max(start-pagerMargin, 0),
			size: v.scroll.height + 2*pagerMargin, sweep: m.sweep})
	}
	v.mirrors = keep // queues no longer shown are forgotten
	return func() tea.Msg {
		out := make(queueRowsMsg, 0, len(reqs))
		for _, r := range reqs {
			out = append(out, readQueueRows(p, r.informer, r.start, r.size, r.sweep))
		}
		return out
	}
}

func readQueueRows(p source.QueuePager, inf string, start, size, sweep int) queueRows {
	msg := queueRows{informer: inf}
	rows, total := p.QueueRows(inf, start, size)
	msg.reads = append(msg.reads, queueRead{offset: start, rows: safeItems(rows), total: total})
	if sweep >= total {
		sweep = 0
	}
	if sweep < start || sweep >= start+len(rows) {
		rows, total = p.QueueRows(inf, sweep, pagerChunk)
		msg.reads = append(msg.reads, queueRead{offset: sweep, rows: safeItems(rows), total: total})
	}
	return msg
}

// apply copies the reads in; the newest total decides the queue's length.
func (m *queueMirror) apply(msg queueRows) {
	if msg.informer != m.informer {
		return
	}
	for _, r := range msg.reads {
		m.total = r.total
		if len(m.items) > r.total {
			m.items = m.items[:r.total]
		}
		for len(m.items) < r.total {
			m.items = append(m.items, source.QueueItem{})
		}
		end := min(r.offset+len(r.rows), len(m.items))
		if r.offset < end {
			copy(m.items[r.offset:end], r.rows)
		}
		m.ready = true
	}
	if n := len(msg.reads); n > 0 {
		last := msg.reads[n-1]
		m.sweep = last.offset + len(last.rows)
		if m.sweep >= m.total {
			m.sweep = 0
		}
	}
}

// head is the rows of s's queue the view shows: the whole queue when the
// view pages s's queue, else the snapshot's first rows.
func (v *queueView) head(s *source.Informer) []source.QueueItem {
	if v.paged(s) {
		return v.mirrors[s.Name].items
	}
	return s.Queue.Head
}

// paged reports that the whole of s's queue is shown. A pager that reads
// nothing while the snapshot has rows is not trusted over the snapshot
// (the queue may have drained since, and then the snapshot is a tick old
// at worst).
func (v *queueView) paged(s *source.Informer) bool {
	m := v.mirrors[s.Name]
	return m != nil && m.ready && (m.total > 0 || len(s.Queue.Head) == 0)
}
