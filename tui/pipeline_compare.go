package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// compareStackLines is how many lines a compact stage stack takes before
// its listener branches: title, five stages, four connectors and the
// queue's second line.
const compareStackLines = 11

// renderCompare draws the compared informers as compact stage stacks in
// columns, then one line setting their queues against each other, then the
// current informer's event chart when there is room.
func (v *pipelineView) renderCompare() string {
	c := v.c
	snaps := c.compared()
	widths := columnWidths(c.width, len(snaps))
	maxLis := 0
	for _, s := range snaps {
		maxLis = max(maxLis, len(s.Listeners))
	}
	// Rows after the stacks: a blank line and the comparison line; the
	// chart only if it gets at least one row per type.
	room := c.height - compareStackLines - 2
	chartMin := 2 + evKinds
	listenerRows, perSeries := max(room, 0), 0
	switch {
	case room >= maxLis+chartMin:
		listenerRows = maxLis
		perSeries = min(max((room-maxLis-2)/evKinds, 1), 3)
	case room > chartMin:
		listenerRows, perSeries = room-chartMin, 1
	}
	blocks := make([][]string, len(snaps))
	tall := 0
	for i, s := range snaps {
		blocks[i] = v.compareStack(s, listenerRows)
		tall = max(tall, len(blocks[i]))
	}
	lines := joinColumns(c, blocks, widths, tall)
	lines = append(lines, "", v.queueComparison(snaps))
	if perSeries > 0 {
		lines = append(lines, "")
		lines = append(lines, v.chart(c.data.history(), perSeries)...)
	}
	return fit(strings.Join(lines, "\n"), c.width, c.height)
}

// compareStack is one informer's stages folded into a column: the same
// facts as the single view, fewer words, the queue on two lines so rows,
// deltas and coalescing can be read across the columns.
func (v *pipelineView) compareStack(s *source.Informer, listenerRows int) []string {
	c := v.c
	st := c.styles
	h := c.data.hist[s.Name]
	if h == nil {
		h = &history{}
	}
	p := h.latest()
	now := c.nowOf(s)
	r := s.Reflector
	watchRate := p.eventRate[evAdded] + p.eventRate[evModified] + p.eventRate[evDeleted]
	list := fmt.Sprintf("%s (%s)", humanize.PluralShort(r.Lists, "list"), listHow(r))
	if r.ListInProgress {
		list = st.warn.Render(listingWord(r) + ": " + humanize.CountShort(r.LastListItems) + " so far")
	}
	relists := humanize.PluralShort(r.Relists, "relist")
	if r.Relists > 0 {
		relists = st.warn.Render(relists)
	}
	errs := humanize.PluralShort(r.Errors, "error")
	if r.Errors > 0 {
		errs = st.bad.Render(errs)
	}
	q1, q2 := v.compareQueue(s, p, now)
	lines := []string{
		columnTitle(c, s),
		v.label("API server") + v.join("RV "+orDash(s.LastSyncResourceVersion), connShort(c, s), humanize.Rate(watchRate)+" events"),
		v.connector(),
		v.label("Reflector") + v.join(list, errs, relists, humanize.PluralShort(r.Watches, "watch")),
		v.connector(),
		v.label("Queue") + q1,
		v.label("") + q2,
		v.connector(),
		v.label("Indexer") + v.compareIndexer(s),
		v.connector(),
		v.label("Processor") + v.compareProcessor(s, p),
	}
	return append(lines, v.listenerLines(s, h, now, listenerRows)...)
}

// compareQueue is the queue stage on two lines: how many rows hold how
// many deltas, then what the queue does with them and its flow.
func (v *pipelineView) compareQueue(s *source.Informer, p *point, now time.Time) (string, string) {
	q := s.Queue
	if isClientGo(s) {
		// Only the depth is known: no deltas, no flow.
		return "depth " + humanize.CountShort(q.Depth), v.join(v.c.styles.dim.Render("client-go's own: rows and flow not shown"), v.queueState(s, "initial list not processed"))
	}
	first := v.join(humanize.CountShort(q.Depth)+" rows", humanize.CountShort(q.Deltas)+" deltas")
	if q.Depth > 0 {
		first = v.join(first, "oldest "+humanize.Duration(since(now, q.OldestEnqueued)))
	}
	how := "one row per event"
	if queueKind(s) == source.DeltaFIFO {
		how = humanize.CountShort(q.Coalesced) + " coalesced"
	}
	state := v.queueState(s, "initial list not processed")
	return first, v.join(how, "in "+humanize.Rate(p.queueInRate), "out "+humanize.Rate(p.queueOutRate), state)
}

// compareIndexer is the cache's size and, from the engine, its changes.
func (v *pipelineView) compareIndexer(s *source.Informer) string {
	store := s.Store
	if isClientGo(s) {
		return humanize.PluralShort(store.Objects, "object")
	}
	return v.join(humanize.PluralShort(store.Objects, "object"),
		humanize.CountShort(store.Adds)+" added", humanize.CountShort(store.Updates)+" updated", humanize.CountShort(store.Deletes)+" deleted")
}

func (v *pipelineView) compareProcessor(s *source.Informer, p *point) string {
	sync, total := v.listenersSynced(s, p)
	return v.join(humanize.PluralShort(len(s.Listeners), "listener"), sync, "delivering "+humanize.Rate(total))
}

// queueComparison sets the compared queues against each other in one line:
// how many rows each needs for the deltas it holds.
func (v *pipelineView) queueComparison(snaps []*source.Informer) string {
	st := v.c.styles
	parts := make([]string, 0, len(snaps))
	empty := true
	owed := 0
	for _, s := range snaps {
		q := s.Queue
		// Empty only when nothing at all is queued: the rows drawn come
		// from the head, so a head with rows is never called empty.
		if q.Depth > 0 || q.Deltas > 0 || len(q.Head) > 0 {
			empty = false
		}
		for _, l := range s.Listeners {
			owed += l.Pending
		}
		part := fmt.Sprintf("%s %s rows for %s deltas", st.bold.Render(s.Name), humanize.CountShort(q.Depth), humanize.CountShort(q.Deltas))
		if isClientGo(s) {
			part = fmt.Sprintf("%s %s rows, deltas not counted", st.bold.Render(s.Name), humanize.CountShort(q.Depth))
		}
		if q.Depth > 0 && q.Deltas > q.Depth {
			part += fmt.Sprintf(" (%.1f per row)", float64(q.Deltas)/float64(q.Depth))
		}
		parts = append(parts, part)
	}
	label := st.stage.Render(pad("Rows/deltas", v.stageWidth(), false))
	switch {
	case empty && owed > 0:
		return label + st.dim.Render("every compared queue is empty; their listeners still owe "+humanize.PluralShort(owed, "notification"))
	case empty:
		return label + st.dim.Render("every compared queue is empty; a burst while paused shows how each queues it")
	}
	return label + strings.Join(parts, st.dim.Render(" · "))
}
