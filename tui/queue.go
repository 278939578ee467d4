package tui

import (
	"fmt"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"k8s.io/client-go/tools/cache"
)

// queueView lists the queue's head in pop order: one row per key with its
// coalesced deltas for DeltaFIFO, one row per event for RealFIFO. In
// compare mode the heads of the informers sharing the resource stand in
// columns, filtered alike, the focused one (the current informer) holding
// the cursor and the others marking the rows of the selected key.
type queueView struct {
	c        *common
	scroll   scroller
	filter   filterBox
	match    matcher
	rows     []int        // indexes into the head, after filtering
	detail   *queueDetail // the open row detail; nil shows the list
	informer string       // whose queue is shown; a switch starts over
	peers    []queuePeer  // the other compared queues, while comparing
	// mirrors hold the whole queues shown (the focused one and, in
	// compare mode, its peers), by informer, when the source pages them.
	mirrors map[string]*queueMirror
	stale   bool // the matchers do not hold the rows shown yet (readCorpora)
}

// queuePeer is a compared queue beside the focused one.
type queuePeer struct {
	name  string
	match matcher
	rows  []int // indexes into its head, after filtering
}

func newQueueView(c *common) *queueView {
	return &queueView{c: c, filter: newFilterBox(c)}
}

func (v *queueView) name() string    { return "Queue" }
func (v *queueView) capturing() bool { return v.filter.editing }

func (v *queueView) shortHelp() []key.Binding {
	k := v.c.keys
	if v.detail != nil {
		return []key.Binding{k.Back}
	}
	var keys []key.Binding
	if !v.sealed() {
		keys = []key.Binding{k.Up, k.Down, k.Filter, k.Open}
	}
	if v.c.peers() != nil {
		keys = append(keys, k.Compare)
	}
	return keys
}

func (v *queueView) resize() { v.scroll.setHeight(v.tableHeight()) }

// tableHeight is how many rows of the head fit under the titles, the
// filter prompt and the compare note or hint.
func (v *queueView) tableHeight() int {
	h := v.c.height - 2 // summary and column titles
	switch {
	case v.c.comparing():
		h -= 2 // the informer's title line and the note under the columns
	case compareHint(v.c) != "":
		h--
	}
	if v.filter.shown() {
		h--
	}
	return h
}

// refresh re-filters the new heads and re-reads an open detail; the heads
// are bounded by the engine, so this is cheap even for a deep queue.
func (v *queueView) refresh() tea.Cmd {
	if v.informer != v.c.data.current {
		v.informer, v.detail = v.c.data.current, nil
		v.filter.clear()
		v.scroll.top()
	}
	v.corpora()
	return tea.Batch(v.detailCmd(), v.pagerCmd())
}

// corpora re-reads what the filter searches in every queue shown, and
// filters again.
func (v *queueView) corpora() {
	v.peers = v.peers[:0]
	if v.c.comparing() {
		for _, s := range v.c.compared() {
			if s.Name != v.c.data.current {
				v.peers = append(v.peers, queuePeer{name: s.Name})
			}
		}
	}
	v.stale = true
	v.applyFilter()
}

// readCorpora fills the matchers from the rows shown. Only a filter reads
// them, so a paged queue of 100k rows costs nothing per frame unfiltered.
func (v *queueView) readCorpora() {
	v.match.setCorpus(headKeys(v.head(v.c.snap())))
	for i := range v.peers {
		if s := v.c.data.byName(v.peers[i].name); s != nil {
			v.peers[i].match.setCorpus(headKeys(v.head(s)))
		}
	}
	v.stale = false
}

// headKeys is what the filter searches in each row: its key, or for a
// whole-store row its label ("(Bookmark)", "(ReplacedAll)"), so those rows
// can be found too.
func headKeys(head []source.QueueItem) []string {
	keys := make([]string, len(head))
	for i, it := range head {
		keys[i] = it.Key
		if it.Key == "" {
			keys[i] = keylessLabel(it.Types)
		}
	}
	return keys
}

func (v *queueView) applyFilter() {
	q := v.filter.spec()
	if v.stale && q.active() {
		v.readCorpora()
	}
	v.rows = filterRows(&v.match, q, len(v.head(v.c.snap())), v.rows)
	for i := range v.peers {
		p := &v.peers[i]
		n := 0
		if s := v.c.data.byName(p.name); s != nil {
			n = len(v.head(s))
		}
		p.rows = filterRows(&p.match, q, n, p.rows)
	}
	v.scroll.setHeight(v.tableHeight())
	v.scroll.setLen(len(v.rows))
}

// filterRows is the rows of an n-row head matching q, reusing buf when
// every row matches.
func filterRows(m *matcher, q filterSpec, n int, buf []int) []int {
	if idx := m.apply(q); idx != nil || q.active() {
		return idx
	}
	buf = buf[:0]
	for i := 0; i < n; i++ {
		buf = append(buf, i)
	}
	return buf
}

func (v *queueView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case queueDetailMsg:
		v.applyDetail(msg)
		return nil
	case queueRowsMsg:
		for _, one := range msg {
			if m := v.mirrors[one.informer]; m != nil {
				m.apply(one)
			}
		}
		v.corpora()
		return nil
	case tea.PasteMsg:
		_, cmd := v.filter.paste(msg)
		v.applyFilter()
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := v.c.keys
	if v.sealed() {
		return nil // no rows to move over, filter or open
	}
	if v.filter.editing {
		changed, cmd := v.filter.update(km, k)
		if changed {
			v.scroll.top()
		}
		v.applyFilter()
		return cmd
	}
	switch {
	case v.detail != nil && key.Matches(km, k.Back):
		v.detail = nil
	case v.detail != nil:
	case key.Matches(km, k.Filter):
		cmd := v.filter.start()
		v.applyFilter()
		return cmd
	case key.Matches(km, k.Back):
		v.filter.clear()
		v.applyFilter()
	case key.Matches(km, k.Open):
		if it := v.selected(); it != nil {
			v.detail = &queueDetail{key: it.Key, types: it.Types}
			return v.detailCmd()
		}
	default:
		v.scroll.handleKey(km, k)
	}
	return nil
}

func (v *queueView) selected() *source.QueueItem {
	head := v.head(v.c.snap())
	if len(v.rows) == 0 || v.scroll.cursor >= len(v.rows) {
		return nil
	}
	if i := v.rows[v.scroll.cursor]; i < len(head) {
		return &head[i]
	}
	return nil
}

const (
	qcPos = iota
	qcKey
	qcDeltas
	qcCount
	qcAge
)

// queueColumns are the head table's columns for a queue kind.
func queueColumns(kind source.QueueKind) []column {
	if kind == source.DeltaFIFO {
		return []column{
			{title: "#", width: 6, right: true, prio: 2, id: qcPos},
			{title: "KEY", width: 24, flex: true, maxw: 64, id: qcKey},
			{title: "N", width: 3, right: true, prio: 1, id: qcCount},
			{title: "DELTAS, OLDEST FIRST", width: 20, id: qcDeltas},
			{title: "AGE", width: 7, right: true, id: qcAge},
		}
	}
	return []column{
		{title: "#", width: 6, right: true, prio: 2, id: qcPos},
		{title: "KEY", width: 24, flex: true, maxw: 64, id: qcKey},
		{title: "EVENT", width: 10, id: qcDeltas},
		{title: "AGE", width: 7, right: true, id: qcAge},
	}
}

func (v *queueView) kind() source.QueueKind { return queueKind(v.c.snap()) }

func (v *queueView) render() string {
	if v.detail != nil {
		return v.renderDetail()
	}
	if v.c.comparing() {
		return v.renderCompare()
	}
	st := v.c.styles
	s := v.c.snap()
	lines := []string{v.summary()}
	if v.sealed() {
		return v.renderSealed(lines)
	}
	if v.filter.shown() {
		lines = append(lines, v.filter.view(v.c, v.c.width, len(v.rows), len(v.head(s))))
	}
	cols := layoutColumns(queueColumns(v.kind()), v.c.width)
	lines = append(lines, st.colHead.Render(renderHeader(cols)))
	if len(v.rows) == 0 {
		for _, l := range wrapText(v.emptyText(s), v.c.width) {
			lines = append(lines, st.dim.Render(l))
		}
	}
	lo, hi := v.scroll.window()
	lines = append(lines, v.headRows(s, v.rows, lo, hi, cols, headMarks{cursor: v.scroll.cursor}, v.c.width)...)
	if hint := compareHint(v.c); hint != "" {
		out := fit(strings.Join(lines, "\n"), v.c.width, v.c.height-1)
		return out + "\n" + truncate(hint, v.c.width)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}

// emptyText says why s's table has no rows: an empty queue, or a filter
// that matches none of its rows.
func (v *queueView) emptyText(s *source.Informer) string {
	if isClientGo(s) {
		return "client-go's own informer keeps its queue to itself"
	}
	if v.c.caps.fleet {
		return whySeriesOnly
	}
	if spec := v.filter.spec(); spec.err != "" {
		return spec.err
	}
	if len(v.head(s)) > 0 && v.filter.query() != "" {
		return "no queued key matches the filter"
	}
	return "the queue is empty"
}

// headMarks says which rows of a head table stand out: the cursor row in
// reverse video, and in compare mode a "▸ " before the rows of one key.
type headMarks struct {
	cursor  int    // row index (into rows) under the cursor; -1 for none
	marks   bool   // draw the two-cell mark column
	markKey string // rows with this key get the mark; "" marks none
}

// headRows draws rows lo..hi of a queue's filtered head under cols, w
// cells wide. Ages are measured against the snapshot's own time.
func (v *queueView) headRows(s *source.Informer, rows []int, lo, hi int, cols []column, hm headMarks, w int) []string {
	st := v.c.styles
	head := v.head(s)
	now := v.c.nowOf(s)
	out := make([]string, 0, hi-lo)
	cells := make([]string, 5)
	for r := lo; r < hi; r++ {
		i := rows[r]
		if i >= len(head) {
			break
		}
		it := head[i]
		cells[qcPos] = humanize.CountShort(i + 1)
		cells[qcKey] = it.Key
		if it.Key == "" {
			cells[qcKey] = keylessLabel(it.Types) // whole-store items carry no key
		}
		cells[qcDeltas] = deltaRun(it.Types)
		cells[qcCount] = humanize.CountShort(len(it.Types))
		cells[qcAge] = humanize.Duration(since(now, it.Enqueued))
		if r != hm.cursor {
			cells[qcKey] = highlightSpec(cells[qcKey], v.filter.spec(), st.accent.Render)
		}
		line := renderRow(cols, cells)
		if hm.marks {
			mark := "  "
			if r == hm.cursor || (hm.markKey != "" && it.Key == hm.markKey) {
				mark = "▸ "
			}
			line = st.accent.Render(mark) + line
		}
		if r == hm.cursor {
			line = st.cursorRow(line, w)
		}
		out = append(out, line)
	}
	return out
}

// keylessLabel names a whole-store row (ReplacedAll, SyncAll, Bookmark),
// which the queue holds under no key.
func keylessLabel(ts []cache.DeltaType) string {
	if len(ts) == 0 {
		return "(reading…)" // a paged row not read yet
	}
	return "(" + string(ts[0]) + ")"
}

func (v *queueView) summary() string {
	st := v.c.styles
	q := v.c.snap().Queue
	parts := []string{st.bold.Render(v.kind().String()), humanize.PluralShort(q.Depth, "row")}
	if v.c.caps.fleet {
		// The series hold the depth and the oldest row's age, not the
		// queue's kind or its rows.
		parts = []string{"depth " + humanize.CountShort(q.Depth)}
		if q.Depth > 0 {
			parts = append(parts, "oldest "+humanize.Duration(since(v.c.now(), q.OldestEnqueued)))
		}
		return joinNonEmpty(st.dim.Render(" · "), parts...)
	}
	if isClientGo(v.c.snap()) {
		return joinNonEmpty(st.dim.Render(" · "), st.bold.Render(queueKindText(v.c, v.c.snap())), humanize.PluralShort(q.Depth, "row"))
	}
	if q.Deltas != q.Depth {
		parts = append(parts, humanize.CountShort(q.Deltas)+" deltas")
	}
	if q.Depth > 0 {
		parts = append(parts, "oldest "+humanize.Duration(since(v.c.now(), q.OldestEnqueued)))
	}
	switch s := v.c.snap(); {
	case v.paged(s) && q.Depth > v.scroll.height:
		parts = append(parts, st.dim.Render("whole queue, G for the last row"))
	case len(q.Head) < q.Depth:
		parts = append(parts, st.dim.Render("showing the first "+humanize.CountShort(len(q.Head))))
	}
	if v.kind() == source.DeltaFIFO {
		parts = append(parts, st.dim.Render("one row per key, deltas coalesced"))
	} else {
		parts = append(parts, st.dim.Render("one row per event"))
	}
	return joinNonEmpty(st.dim.Render(" · "), parts...)
}

// deltaRun compresses a delta list: "Added Updated×3 Deleted".
func deltaRun(ts []cache.DeltaType) string {
	var b strings.Builder
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(ts[i]))
		if j-i > 1 {
			fmt.Fprintf(&b, "×%d", j-i)
		}
		i = j
	}
	return b.String()
}
