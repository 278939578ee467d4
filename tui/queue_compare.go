package tui

import (
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// renderCompare draws the compared queues' heads in columns under one
// shared filter. The focused column scrolls with the cursor; every other
// column marks the rows of the selected key and scrolls to the first of
// them, so per-key coalescing and one-row-per-event show side by side.
func (v *queueView) renderCompare() string {
	c := v.c
	st := c.styles
	snaps := c.compared()
	widths := columnWidths(c.width, len(snaps))
	var lines []string
	if v.filter.shown() {
		lines = append(lines, v.filter.view(c, c.width, len(v.rows), len(v.head(c.snap()))))
	}
	tableRows := max(v.tableHeight(), 1)
	sel := ""
	if it := v.selected(); it != nil {
		sel = it.Key
	}
	blocks := make([][]string, len(snaps))
	for i, s := range snaps {
		w := widths[i]
		cols := layoutColumns(compareColumns(queueKind(s)), w-2)
		blk := []string{columnTitle(c, s), "  " + v.compareSummary(s), "  " + st.colHead.Render(renderHeader(cols))}
		rows, lo, hi, marks := v.rows, 0, 0, headMarks{cursor: -1, marks: true, markKey: sel}
		if s.Name == c.data.current {
			lo, hi = v.scroll.window()
			marks = headMarks{cursor: v.scroll.cursor, marks: true}
		} else {
			rows = nil
			if p := v.peer(s.Name); p != nil {
				rows = p.rows
			}
			lo = peerOffset(v.head(s), rows, sel, tableRows)
			hi = min(lo+tableRows, len(rows))
		}
		if len(rows) == 0 {
			blk = append(blk, "  "+st.dim.Render(v.emptyText(s)))
		}
		blocks[i] = append(blk, v.headRows(s, rows, lo, hi, cols, marks, w)...)
	}
	lines = append(lines, joinColumns(c, blocks, widths, 3+tableRows)...)
	lines = append(lines, v.compareNote(snaps, sel))
	return fit(strings.Join(lines, "\n"), c.width, c.height)
}

// compareColumns are queueColumns for a narrow column: the key may shrink
// further, and the position, which lines rows up across the columns,
// outlives the delta count (the delta run says it too).
func compareColumns(kind source.QueueKind) []column {
	cols := queueColumns(kind)
	for i := range cols {
		switch cols[i].id {
		case qcKey:
			// A wide terminal gives the key what a long pod name needs.
			cols[i].width, cols[i].maxw = 16, 96
		case qcPos:
			cols[i].prio = 1
		case qcCount:
			cols[i].prio = 2
		}
	}
	return cols
}

func (v *queueView) peer(name string) *queuePeer {
	for i := range v.peers {
		if v.peers[i].name == name {
			return &v.peers[i]
		}
	}
	return nil
}

// compareSummary is a column's second line: rows, deltas, age, and how
// this kind of queue lays them out.
func (v *queueView) compareSummary(s *source.Informer) string {
	st := v.c.styles
	q := s.Queue
	if isClientGo(s) {
		return joinNonEmpty(st.dim.Render(" · "), humanize.PluralShort(q.Depth, "row"), st.dim.Render("client-go's own: rows not shown"))
	}
	parts := []string{humanize.PluralShort(q.Depth, "row"), humanize.PluralShort(q.Deltas, "delta")}
	if q.Depth > 0 {
		parts = append(parts, "oldest "+humanize.Duration(since(v.c.nowOf(s), q.OldestEnqueued)))
	}
	if !v.paged(s) && len(q.Head) < q.Depth {
		parts = append(parts, st.dim.Render("first "+humanize.CountShort(len(q.Head))+" shown"))
	}
	if queueKind(s) == source.DeltaFIFO {
		parts = append(parts, st.dim.Render("one row per key"))
	} else {
		parts = append(parts, st.dim.Render("one row per event"))
	}
	return joinNonEmpty(st.dim.Render(" · "), parts...)
}

// peerOffset is the first row a peer column shows: the top, unless the
// selected key's first row would be below the window; then that row sits a
// third of the way down.
func peerOffset(head []source.QueueItem, rows []int, key string, height int) int {
	if key == "" {
		return 0
	}
	for r, i := range rows {
		if i < len(head) && head[i].Key == key {
			if r < height {
				return 0
			}
			return max(min(r-height/3, len(rows)-height), 0)
		}
	}
	return 0
}

// compareNote is the line under the columns: how each compared queue holds
// the selected key, counted over the head rows shown.
func (v *queueView) compareNote(snaps []*source.Informer, key string) string {
	st := v.c.styles
	if key == "" {
		return st.dim.Render("▸ marks the selected key's rows in every column; enter shows its deltas")
	}
	parts := make([]string, 0, len(snaps))
	for _, s := range snaps {
		rows, deltas := 0, 0
		head := v.head(s)
		for _, it := range head {
			if it.Key == key {
				rows++
				deltas += len(it.Types)
			}
		}
		part := st.bold.Render(s.Name) + " " + humanize.PluralShort(rows, "row") + " holding " + humanize.PluralShort(deltas, "delta")
		if len(head) < s.Queue.Depth {
			part += " in its first " + humanize.CountShort(len(head))
		}
		parts = append(parts, part)
	}
	return st.accent.Render("▸ "+key) + st.dim.Render(": ") + strings.Join(parts, st.dim.Render(" · "))
}
