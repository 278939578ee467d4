package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine/fifo"
)

// queueView lists the queue's head in pop order: one row per key with its
// coalesced deltas for DeltaFIFO, one row per event for RealFIFO.
type queueView struct {
	c        *common
	scroll   scroller
	filter   filterBox
	match    matcher
	rows     []int // indexes into the head, after filtering
	detail   string
	informer string // whose queue is shown; a switch starts over
}

func newQueueView(c *common) *queueView {
	return &queueView{c: c, filter: newFilterBox(c)}
}

func (v *queueView) name() string    { return "Queue" }
func (v *queueView) capturing() bool { return v.filter.editing }

func (v *queueView) shortHelp() []key.Binding {
	k := v.c.keys
	if v.detail != "" {
		return []key.Binding{k.Back}
	}
	return []key.Binding{k.Up, k.Down, k.Filter, k.Open}
}

func (v *queueView) resize() { v.scroll.setHeight(v.tableHeight()) }

func (v *queueView) tableHeight() int {
	h := v.c.height - 2 // summary and column titles
	if v.filter.shown() {
		h--
	}
	return h
}

// refresh re-filters the new head; the head is bounded by the engine, so
// this is cheap even for a deep queue.
func (v *queueView) refresh() tea.Cmd {
	if v.informer != v.c.data.current {
		v.informer, v.detail = v.c.data.current, ""
		v.filter.clear()
		v.scroll.top()
	}
	head := v.c.snap().Queue.Head
	keys := make([]string, len(head))
	for i, it := range head {
		keys[i] = it.Key
	}
	v.match.setCorpus(keys, 0)
	v.applyFilter()
	return nil
}

func (v *queueView) applyFilter() {
	head := v.c.snap().Queue.Head
	if idx := v.match.filter(v.filter.query()); idx != nil || v.filter.query() != "" {
		v.rows = idx
	} else {
		v.rows = v.rows[:0]
		for i := range head {
			v.rows = append(v.rows, i)
		}
	}
	v.scroll.setHeight(v.tableHeight())
	v.scroll.setLen(len(v.rows))
}

func (v *queueView) update(msg tea.Msg) tea.Cmd {
	if pm, ok := msg.(tea.PasteMsg); ok {
		_, cmd := v.filter.paste(pm)
		v.applyFilter()
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := v.c.keys
	if v.filter.editing {
		changed, cmd := v.filter.update(km, k)
		if changed {
			v.scroll.top()
		}
		v.applyFilter()
		return cmd
	}
	switch {
	case v.detail != "" && key.Matches(km, k.Back):
		v.detail = ""
	case v.detail != "":
	case key.Matches(km, k.Filter):
		cmd := v.filter.start()
		v.applyFilter()
		return cmd
	case key.Matches(km, k.Back):
		v.filter.clear()
		v.applyFilter()
	case key.Matches(km, k.Open):
		if it := v.selected(); it != nil {
			v.detail = it.Key
		}
	default:
		v.scroll.handleKey(km, k)
	}
	return nil
}

func (v *queueView) selected() *fifo.Item {
	head := v.c.snap().Queue.Head
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

func (v *queueView) columns() []column {
	if v.kind() == fifo.KindDeltaFIFO {
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

func (v *queueView) kind() string {
	s := v.c.snap()
	if s.QueueKind != "" {
		return s.QueueKind
	}
	return s.Queue.Kind
}

func (v *queueView) render() string {
	if v.detail != "" {
		return fit(v.renderDetail(v.detail), v.c.width, v.c.height)
	}
	st := v.c.styles
	q := v.c.snap().Queue
	lines := []string{v.summary()}
	if v.filter.shown() {
		lines = append(lines, v.filter.view(v.c, v.c.width, len(v.rows), len(q.Head)))
	}
	cols := layoutColumns(v.columns(), v.c.width)
	lines = append(lines, st.colHead.Render(renderHeader(cols)))
	if len(v.rows) == 0 {
		msg := "the queue is empty"
		if v.filter.query() != "" {
			msg = "no queued key matches the filter"
		}
		lines = append(lines, st.dim.Render(msg))
	}
	now := v.c.now()
	lo, hi := v.scroll.window()
	cells := make([]string, 5)
	for r := lo; r < hi; r++ {
		i := v.rows[r]
		if i >= len(q.Head) {
			break
		}
		it := q.Head[i]
		cells[qcPos] = count(i + 1)
		cells[qcKey] = it.Key
		if it.Key == "" {
			cells[qcKey] = "(bookmark)" // bookmarks carry a resourceVersion, no key
		}
		cells[qcDeltas] = deltaRun(it.Types)
		cells[qcCount] = count(len(it.Types))
		cells[qcAge] = humanDuration(since(now, it.Enqueued))
		if r != v.scroll.cursor {
			cells[qcKey] = highlight(it.Key, v.filter.query(), st.accent.Render)
		}
		line := renderRow(cols, cells)
		if r == v.scroll.cursor {
			line = st.cursorRow(line, v.c.width)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}

func (v *queueView) summary() string {
	st := v.c.styles
	q := v.c.snap().Queue
	parts := []string{st.bold.Render(v.kind()), count(q.Depth) + " rows"}
	if q.Deltas != q.Depth {
		parts = append(parts, count(q.Deltas)+" deltas")
	}
	if q.Depth > 0 {
		parts = append(parts, "oldest "+humanDuration(since(v.c.now(), q.OldestEnqueued)))
	}
	if len(q.Head) < q.Depth {
		parts = append(parts, st.dim.Render("showing the first "+count(len(q.Head))))
	}
	if v.kind() == fifo.KindDeltaFIFO {
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

// renderDetail shows every queued delta of one key and what popping it now
// would do, given whether the key is in the cache.
func (v *queueView) renderDetail(key string) string {
	st := v.c.styles
	q := v.c.snap().Queue
	now := v.c.now()
	type entry struct {
		pos int
		t   cache.DeltaType
		age string
	}
	var entries []entry
	for i, it := range q.Head {
		if it.Key != key {
			continue
		}
		for _, t := range it.Types {
			entries = append(entries, entry{i + 1, t, humanDuration(since(now, it.Enqueued))})
		}
	}
	lines := []string{st.bold.Render("key "+key) + st.dim.Render(" · "+v.kind())}
	if len(entries) == 0 {
		lines = append(lines, "no longer queued: it was popped since you opened it")
		return strings.Join(lines, "\n")
	}
	present, rv := v.cached(key)
	state := "not in the cache"
	if present {
		state = "in the cache"
		if rv != "" {
			state += " at resourceVersion " + rv
		}
	}
	lines = append(lines, st.dim.Render("now ")+state, "",
		st.colHead.Render(fmt.Sprintf("%6s  %-9s %7s  %s", "#", "DELTA", "AGE", "IF POPPED NOW")))
	for _, e := range entries {
		var effect string
		effect, present = deltaEffect(e.t, present)
		lines = append(lines, fmt.Sprintf("%6s  %-9s %7s  %s", count(e.pos), e.t, e.age, effect))
	}
	if v.kind() == fifo.KindDeltaFIFO && len(entries) > 1 {
		lines = append(lines, "", st.dim.Render("DeltaFIFO keeps one queue position per key: these deltas leave together, oldest first."))
	}
	return strings.Join(lines, "\n")
}

// cached reports whether the store holds key, and its resourceVersion.
func (v *queueView) cached(key string) (bool, string) {
	sr := v.c.src.Store(v.c.data.current)
	if sr == nil {
		return false, ""
	}
	obj, ok := sr.Get(key)
	if !ok {
		return false, ""
	}
	if a, err := meta.Accessor(obj); err == nil {
		return true, a.GetResourceVersion()
	}
	return true, ""
}

// deltaEffect is what HandleDeltas does with one delta, and whether the
// key is in the store afterwards.
func deltaEffect(t cache.DeltaType, present bool) (string, bool) {
	switch t {
	case cache.Deleted:
		return "Delete, then OnDelete to every listener", false
	case cache.Sync:
		if present {
			return "Update, then OnUpdate as a resync: only listeners with a resync due", true
		}
		return "Add, then OnAdd", true
	case cache.Replaced:
		if present {
			return "Update, then OnUpdate (a resync if the resourceVersion is unchanged)", true
		}
		return "Add, then OnAdd", true
	default:
		if present {
			return "Update, then OnUpdate", true
		}
		return "Add, then OnAdd", true
	}
}
