package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"

	"k8s.io/client-go/tools/cache"
)

// renderDetail draws the open detail: the current informer's alone, or in
// compare mode the same key in every compared queue, in columns.
func (v *queueView) renderDetail() string {
	c := v.c
	if c.comparing() && v.detail.key != "" {
		snaps := c.compared()
		widths := columnWidths(c.width, len(snaps))
		blocks := make([][]string, len(snaps))
		for i, s := range snaps {
			blocks[i] = append([]string{columnTitle(c, s)}, v.detailLines(s, widths[i], c.height-1, true)...)
		}
		return fit(strings.Join(joinColumns(c, blocks, widths, c.height), "\n"), c.width, c.height)
	}
	return fit(strings.Join(v.detailLines(c.snap(), c.width, c.height, false), "\n"), c.width, c.height)
}

// detailLines is one informer's side of the detail, at most h lines of w
// cells; inColumn drops what the column's title already says.
func (v *queueView) detailLines(s *source.Informer, w, h int, inColumn bool) []string {
	st := v.c.styles
	d := v.detail
	data := d.data[s.Name]
	if d.key == "" {
		return v.keylessLines(s, data, w)
	}
	title := st.bold.Render("key " + d.key)
	if !inColumn {
		title += st.dim.Render(" · " + queueKind(s).String())
	}
	lines := []string{title}
	switch {
	case data == nil:
		return append(lines, st.dim.Render("reading the queue…"))
	case data.reader:
		return append(lines, v.readerLines(s, data, w, h-1)...)
	}
	return append(lines, v.typeLines(s, data, h-1)...)
}

// notQueued is what a detail says when the key has nothing queued.
func (v *queueView) notQueued(s *source.Informer) string {
	if s.Name != v.c.data.current {
		return "nothing queued for this key in " + s.Name
	}
	return "no longer queued: it was popped since you opened it"
}

// cacheLine is "now in the cache at resourceVersion 9100".
func (v *queueView) cacheLine(data *detailData) string {
	state := "not in the cache"
	if data.present {
		state = "in the cache"
		if data.rv != "" {
			state += " at resourceVersion " + data.rv
		}
	}
	return v.c.styles.dim.Render("now ") + state
}

// typeLines is the detail from the head alone, for sources without a
// QueueReader: each delta's type, its row and age, and its effect, in at
// most h lines.
func (v *queueView) typeLines(s *source.Informer, data *detailData, h int) []string {
	st := v.c.styles
	key := v.detail.key
	type entry struct {
		pos int
		t   cache.DeltaType
		age string
	}
	var entries []entry
	for i, it := range v.head(s) {
		if it.Key != key {
			continue
		}
		for _, t := range it.Types {
			entries = append(entries, entry{i + 1, t, humanize.Duration(since(v.c.nowOf(s), it.Enqueued))})
		}
	}
	if len(entries) == 0 {
		return []string{v.notQueued(s)}
	}
	lines := []string{v.cacheLine(data)}
	if ahead := v.aheadNote(s); ahead != "" {
		lines = append(lines, ahead)
	}
	lines = append(lines, "", st.colHead.Render(fmt.Sprintf("%6s  %-9s %7s  %s", "#", "DELTA", "AGE", "IF POPPED NOW")))
	note := queueKind(s) == source.DeltaFIFO && len(entries) > 1
	budget := h - len(lines)
	if note {
		budget -= 2
	}
	present := data.present
	for i, e := range entries {
		if len(entries)-i > budget && budget <= 1 {
			lines = append(lines, st.dim.Render(fmt.Sprintf("  … %s more", humanize.CountShort(len(entries)-i))))
			break
		}
		var effect string
		effect, present = deltaEffect(e.t, present)
		lines = append(lines, fmt.Sprintf("%6s  %-9s %7s  %s", humanize.CountShort(e.pos), e.t, e.age, effect))
		budget--
	}
	if note {
		lines = append(lines, "", st.dim.Render(coalescedNote))
	}
	return lines
}

const (
	coalescedNote = "DeltaFIFO keeps one queue position per key: these deltas leave together, oldest first."
	perEventNote  = "RealFIFO keeps every event as its own row: these leave one at a time, in arrival order, with other keys' events in between."
)

// Columns of the per-delta table.
const (
	dcN = iota
	dcType
	dcObject
	dcEffect
)

// readerLines is the detail from the deltas actually queued: each one's
// type, object (resourceVersion, tombstone, whole-store payload) and what
// popping it would do, predicted delta after delta from the cache's state.
// When they do not all fit in h lines the newest are summarised.
func (v *queueView) readerLines(s *source.Informer, data *detailData, w, h int) []string {
	st := v.c.styles
	ds := data.deltas
	if len(ds) == 0 {
		return []string{v.notQueued(s)}
	}
	lines := []string{v.queuedWhere(s, len(ds)), v.cacheLine(data)}
	if ahead := v.aheadNote(s); ahead != "" {
		lines = append(lines, ahead)
	}
	lines = append(lines, "")
	cellText := make([]string, len(ds))
	fullText := make([]string, len(ds))
	longest := 0
	for i, d := range ds {
		cellText[i], fullText[i] = describeDeltaObject(d.Object)
		longest = max(longest, width(cellText[i]))
	}
	// The effect is what the detail is for: the object column stays short,
	// and what does not fit in it (a tombstone's key) gets its own line.
	objW := max(min(longest, 24), 6)
	cols := layoutColumns([]column{
		{title: "N", width: 4, right: true, id: dcN},
		{title: "DELTA", width: 11, id: dcType},
		{title: "OBJECT", width: objW, id: dcObject},
		{title: "IF POPPED NOW", width: 12, flex: true, id: dcEffect},
	}, w)
	indent := 0
	for _, c := range cols {
		if c.id == dcObject {
			break
		}
		indent += c.width + 1
	}
	lines = append(lines, st.colHead.Render(renderHeader(cols)))
	var note []string
	switch {
	case len(ds) < 2:
	case queueKind(s) == source.DeltaFIFO:
		note = wrapText(coalescedNote, w)
	case queueKind(s) == source.RealFIFO:
		note = wrapText(perEventNote, w)
	}
	budget := h - len(lines)
	if len(note) > 0 {
		budget -= 1 + len(note)
	}
	ks := keyState{present: data.present, rv: data.rv, rvKnown: data.rvKnown}
	cells := make([]string, 4)
	for i, d := range ds {
		effect := predictDelta(d, &ks)
		need := 1
		if fullText[i] != "" {
			need = 2
		}
		// Keep a line for the summary unless this is the last delta.
		if reserve := min(1, len(ds)-1-i); need+reserve > budget {
			last := len(ds) - 1
			lines = append(lines, st.dim.Render(fmt.Sprintf("  … %s more, the newest: %s %s",
				humanize.CountShort(len(ds)-i), ds[last].Type, cellText[last])))
			break
		}
		cells[dcN], cells[dcType], cells[dcObject], cells[dcEffect] = humanize.CountShort(i+1), string(d.Type), cellText[i], effect
		lines = append(lines, renderRow(cols, cells))
		if fullText[i] != "" {
			lines = append(lines, strings.Repeat(" ", indent)+st.dim.Render("↳ ")+fullText[i])
		}
		budget -= need
	}
	if len(note) > 0 {
		lines = append(lines, "")
		for _, l := range note {
			lines = append(lines, st.dim.Render(l))
		}
	}
	return lines
}

// labelFigure is a word followed by a space and a figure.
var labelFigure = regexp.MustCompile(`([\p{L}\p{N})%]) (\d)`)

// aheadNote warns when a whole-store item (a relist's ReplacedAll, a
// resync's SyncAll) is queued before the key's first row: it will change
// the cache before the key is popped, while the predictions start from the
// cache as it is now.
func (v *queueView) aheadNote(s *source.Informer) string {
	for i, it := range v.head(s) {
		if it.Key == v.detail.key {
			return ""
		}
		if it.Key == "" && len(it.Types) > 0 && (it.Types[0] == cache.ReplacedAll || it.Types[0] == cache.SyncAll) {
			return v.c.styles.warn.Render(fmt.Sprintf("⚠ the %s at #%s goes first and changes the cache; predicted from the cache as it is now", it.Types[0], humanize.CountShort(i+1)))
		}
	}
	return ""
}

// queuedWhere says where the key's deltas sit, from the snapshot's head:
// one row for DeltaFIFO, a row each for RealFIFO.
func (v *queueView) queuedWhere(s *source.Informer, n int) string {
	q := s.Queue
	var pos []string
	var age string
	head := v.head(s)
	for i, it := range head {
		if it.Key != v.detail.key {
			continue
		}
		if age == "" {
			age = humanize.Duration(since(v.c.nowOf(s), it.Enqueued))
		}
		pos = append(pos, "#"+humanize.CountShort(i+1))
	}
	const listed = 5
	switch {
	case queueKind(s) == source.DeltaFIFO && len(pos) == 0:
		return fmt.Sprintf("%s in one row, beyond the first %s shown", humanize.PluralShort(n, "delta"), humanize.CountShort(len(head)))
	case queueKind(s) == source.DeltaFIFO:
		return fmt.Sprintf("%s in one row: %s of %s, queued %s ago", humanize.PluralShort(n, "delta"), pos[0], humanize.CountShort(q.Depth), age)
	case len(pos) == 0:
		return fmt.Sprintf("%s, beyond the first %s shown", humanize.PluralShort(n, "row"), humanize.CountShort(len(head)))
	case len(pos) > listed:
		pos = append(pos[:listed], "…")
	}
	return fmt.Sprintf("%s: %s of %s, the oldest queued %s ago", humanize.PluralShort(n, "row"), strings.Join(pos, " "), humanize.CountShort(q.Depth), age)
}

// keylessLines is the detail of a whole-store row: what it is, where it
// sits and what popping it does; with a QueueReader, what each keyless
// item queued carries.
func (v *queueView) keylessLines(s *source.Informer, data *detailData, w int) []string {
	st := v.c.styles
	types := v.detail.types
	var t cache.DeltaType
	if len(types) > 0 {
		t = types[0]
	}
	lines := []string{st.bold.Render(keylessLabel(types)) + st.dim.Render(" · a whole-store item: it has no key · "+queueKind(s).String())}
	where := v.notQueued(s)
	for i, it := range v.head(s) {
		if it.Key == "" && slices.Equal(it.Types, types) {
			where = fmt.Sprintf("queued as row #%s of %s, %s ago", humanize.CountShort(i+1), humanize.CountShort(s.Queue.Depth), humanize.Duration(since(v.c.nowOf(s), it.Enqueued)))
			break
		}
	}
	lines = append(lines, where, "", st.colHead.Render("IF POPPED NOW"))
	lines = append(lines, wrapText(keylessEffect(t), w)...)
	if data != nil && data.reader && len(data.deltas) > 0 {
		lines = append(lines, "", st.dim.Render("whole-store items queued, oldest first:"))
		for i, d := range data.deltas {
			cell, _ := describeDeltaObject(d.Object)
			lines = append(lines, fmt.Sprintf("%4s  %-11s %s", humanize.CountShort(i+1), d.Type, cell))
		}
	}
	return lines
}
