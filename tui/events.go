package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// eventCategory is one choice of the type filter: a named set of types.
type eventCategory struct {
	name  string
	types []source.EventType // nil: every type
}

var eventCategories = []eventCategory{
	{"all", nil},
	{"reflector", []source.EventType{source.EventListPage, source.EventListDone, source.EventWatchOpen,
		source.EventWatchClose, source.EventWatchEvent, source.EventWatchError, source.EventRelist, source.EventBookmark}},
	{"queue", []source.EventType{source.EventReplace, source.EventResync, source.EventPop}},
	{"store", []source.EventType{source.EventStoreUpdate}},
	{"handlers", []source.EventType{source.EventDistribute, source.EventHandlerStart, source.EventHandlerFinish,
		source.EventHandlerPanic, source.EventSynced, source.EventCacheMutation, source.EventStalled, source.EventRecovered}},
	// A stall's recovery is listed with it: it says how long the call took.
	{"problems", []source.EventType{source.EventWatchError, source.EventHandlerPanic, source.EventError, source.EventRelist,
		source.EventCacheMutation, source.EventStalled, source.EventRecovered}},
	{"control", []source.EventType{source.EventControl}},
}

func (c eventCategory) has(t source.EventType) bool {
	if c.types == nil {
		return true
	}
	for _, x := range c.types {
		if x == t {
			return true
		}
	}
	return false
}

// eventsView is the instrumentation log, newest at the bottom, following
// new events while the cursor is on the last row.
type eventsView struct {
	c        *common
	scroll   scroller
	filter   filterBox
	match    matcher
	category int
	all      bool // every informer, not only the current one
	// unnarrated: the user filtered, so the view no longer follows the
	// narration (events_narrated.go).
	unnarrated bool
	headline   string // the note the rows were built under
	rows       []int  // indexes into the event log, after filtering
	version    uint64
	informer   string
	open       bool // the selected event is shown in full under the table
	// selSeq is the sequence number of the event under the cursor. The
	// log drops its oldest events as new ones come, which shifts every
	// row, so the cursor is kept on this event rather than on a row index.
	selSeq uint64
}

func newEventsView(c *common) *eventsView {
	v := &eventsView{c: c, filter: newFilterBox(c)}
	v.filter.where = filterWhere{fields: true}
	v.filter.input.Placeholder = "text or regexp · -f fuzzy · type:Relist key:… listener:…"
	return v
}

func (v *eventsView) name() string    { return "Events" }
func (v *eventsView) capturing() bool { return v.filter.editing }

func (v *eventsView) shortHelp() []key.Binding {
	k := v.c.keys
	if v.open {
		return []key.Binding{k.Up, k.Down, k.Back}
	}
	return []key.Binding{k.Filter, k.TypeFilter, k.AllInformers, k.Open, k.Bottom}
}

func (v *eventsView) resize() { v.scroll.setHeight(v.tableHeight()) }

func (v *eventsView) tableHeight() int {
	h := v.c.height - 2
	if v.filter.shown() {
		h--
	}
	return h - v.detailHeight()
}

// refresh re-filters when the log or the informer changed.
func (v *eventsView) refresh() tea.Cmd {
	log := &v.c.data.events
	if log.version == v.version && v.informer == v.c.data.current && v.rows != nil && v.headline == headline(v.c) {
		return nil
	}
	v.rebuild()
	return nil
}

// rebuild recomputes the rows; a cursor on the last row follows the tail,
// anywhere else it stays on its event (or the next one left, when a
// filter hides it) at the same height on the screen.
func (v *eventsView) rebuild() {
	log := &v.c.data.events
	follow := v.scroll.atBottom()
	onScreen := v.scroll.cursor - v.scroll.offset
	v.version, v.informer, v.headline = log.version, v.c.data.current, headline(v.c)
	cat := eventCategories[v.category]
	types, others, narrated := v.narrated()
	v.rows = v.rows[:0]
	if v.rows == nil {
		v.rows = make([]int, 0, log.len())
	}
	for i := 0; i < log.len(); i++ {
		e := log.at(i)
		if narrated {
			if keepNarrated(e, types, v.informer, others) {
				v.rows = append(v.rows, i)
			}
			continue
		}
		if !cat.has(e.Type) {
			continue
		}
		if !v.all && e.Informer != "" && e.Informer != v.informer {
			continue
		}
		v.rows = append(v.rows, i)
	}
	if spec := v.filter.spec(); spec.mode == filterFields && spec.err == "" {
		kept := v.rows[:0]
		for _, i := range v.rows {
			e := log.at(i)
			if spec.matchFields(e.Type.String(), e.Key, e.Listener, e.Informer) && spec.matchText(eventText(e), "") {
				kept = append(kept, i)
			}
		}
		v.rows = kept
	} else if spec.active() {
		texts := make([]string, len(v.rows))
		for j, i := range v.rows {
			texts[j] = eventText(log.at(i))
		}
		v.match.setCorpus(texts)
		idx := v.match.apply(spec)
		kept := make([]int, len(idx))
		for j, k := range idx {
			kept[j] = v.rows[k]
		}
		v.rows = kept
	}
	v.open = v.open && len(v.rows) > 0
	v.scroll.setHeight(v.tableHeight())
	v.scroll.setLen(len(v.rows))
	if follow {
		v.scroll.bottom()
	} else {
		// Rows are in log order, so sequence numbers ascend.
		r := sort.Search(len(v.rows), func(i int) bool { return log.at(v.rows[i]).Seq >= v.selSeq })
		v.scroll.cursor, v.scroll.offset = r, r-onScreen
		v.scroll.clamp()
	}
	v.remember()
	// The open event's detail may need other rows than the last one's.
	v.resize()
}

// remember notes which event the cursor is on; see selSeq.
func (v *eventsView) remember() {
	if v.scroll.cursor < len(v.rows) {
		v.selSeq = v.c.data.events.at(v.rows[v.scroll.cursor]).Seq
	}
}

// eventText is what the search matches: type, informer, listener, key,
// detail and the code a stalled call was found in.
func eventText(e *source.Event) string {
	return strings.Join([]string{e.Type.String(), e.Informer, e.Listener, e.Key, e.Detail, e.Frame}, " ")
}

func (v *eventsView) update(msg tea.Msg) tea.Cmd {
	if pm, ok := msg.(tea.PasteMsg); ok {
		_, cmd := v.filter.paste(pm)
		v.rebuild()
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := v.c.keys
	if v.filter.editing {
		_, cmd := v.filter.update(km, k)
		v.rebuild()
		return cmd
	}
	if key.Matches(km, k.Filter, k.TypeFilter, k.AllInformers) {
		_, _, narrated := v.narrated()
		v.unnarrated = true
		if narrated && key.Matches(km, k.TypeFilter) {
			// From the narrated list, t shows every type.
			v.rebuild()
			return nil
		}
	}
	switch {
	case key.Matches(km, k.Filter):
		cmd := v.filter.start()
		v.rebuild()
		return cmd
	case key.Matches(km, k.Back) && v.open:
		v.open = false
		v.resize()
	case key.Matches(km, k.Back):
		v.filter.clear()
		v.rebuild()
	case key.Matches(km, k.Open) && len(v.rows) > 0:
		v.open = true
		v.resize()
	case key.Matches(km, k.TypeFilter):
		v.category = (v.category + 1) % len(eventCategories)
		v.rebuild()
	case key.Matches(km, k.AllInformers):
		v.all = !v.all
		v.rebuild()
	default:
		if v.scroll.handleKey(km, k) {
			v.remember()
			if v.open {
				v.resize()
			}
		}
	}
	return nil
}

const (
	ecTime = iota
	ecType
	ecInformer
	ecSubject
	ecDetail
)

// columns are the log's columns. Across informers the INFORMER column is
// the point of the mode: it fits beside the rest at 80 cells and is the
// last optional column to go when the terminal is narrower.
func (v *eventsView) columns() []column {
	cols := []column{
		{title: "TIME", width: 12, id: ecTime},
		{title: "TYPE", width: 13, id: ecType},
		{title: "INFORMER", width: 11, prio: 1, id: ecInformer},
		{title: "LISTENER/KEY", width: 24, prio: 2, id: ecSubject},
		{title: "DETAIL", width: 16, flex: true, id: ecDetail},
	}
	types, others, narrated := v.narrated()
	if narrated && !slices.ContainsFunc(types, keyedEvent) {
		// The narrated events name no listener or key: their detail (a
		// 410, a resourceVersion) takes the room.
		cols = slices.Delete(cols, ecSubject, ecSubject+1)
	}
	if !v.all && !(narrated && len(others) > 0) {
		cols = slices.Delete(cols, ecInformer, ecInformer+1)
	}
	// The key and the detail share the spare width half and half, the key
	// up to a long pod name's: at 80 columns keys are cut less, at 160 and
	// more they are whole.
	used := len(cols) - 1
	for _, c := range cols {
		used += c.width
	}
	if spare := v.c.width - used; spare > 0 {
		for i := range cols {
			if cols[i].id == ecSubject {
				cols[i].width += min(spare/2, 48)
			}
		}
	}
	return cols
}

func (v *eventsView) render() string {
	st := v.c.styles
	lines := []string{v.summary()}
	if v.filter.shown() {
		lines = append(lines, v.filter.view(v.c, v.c.width, len(v.rows), v.c.data.events.len()))
	}
	cols := layoutColumns(v.columns(), v.c.width)
	lines = append(lines, st.colHead.Render(renderHeader(cols)))
	switch {
	case len(v.rows) == 0 && v.c.caps.fleet:
		for _, l := range wrapText(whySeriesOnly, v.c.width) {
			lines = append(lines, st.dim.Render(l))
		}
	case len(v.rows) == 0 && v.filter.spec().err != "":
		for _, l := range wrapText(v.filter.spec().err, v.c.width) {
			lines = append(lines, st.bad.Render(l))
		}
	case len(v.rows) == 0:
		lines = append(lines, st.dim.Render("no events"))
	}
	log := &v.c.data.events
	cells := make([]string, 5)
	subjectW := columnWidth(cols, ecSubject)
	lo, hi := v.scroll.window()
	// At the top of the log, where the overwritten events would be, one
	// line says what they were; the cursor's row keeps its place first.
	if dropped := v.dropped(); lo == 0 && dropped != "" && (hi-lo < v.scroll.height || v.scroll.cursor < hi-1) {
		lines = append(lines, st.dim.Render(dropped))
		if hi-lo == v.scroll.height {
			hi--
		}
	}
	for r := lo; r < hi; r++ {
		e := log.at(v.rows[r])
		cells[ecTime] = e.Time.In(v.c.loc).Format("15:04:05.000")
		cells[ecType] = e.Type.String()
		cells[ecInformer] = e.Informer
		cells[ecSubject] = eventSubject(e, subjectW)
		cells[ecDetail] = eventDetail(e)
		line := renderRow(cols, cells)
		switch {
		case r == v.scroll.cursor:
			line = st.cursorRow(line, v.c.width)
		case isProblem(e.Type):
			line = st.bad.Render(line)
		case e.Type == source.EventStalled:
			line = st.warn.Render(line)
		case e.Type == source.EventRecovered:
			line = st.ok.Render(line)
		}
		lines = append(lines, line)
	}
	if v.open && len(v.rows) > 0 {
		detail := v.detailLines(log.at(v.rows[v.scroll.cursor]))
		body := fit(strings.Join(lines, "\n"), v.c.width, v.c.height-1-len(detail))
		return fit(body+"\n\n"+strings.Join(detail, "\n"), v.c.width, v.c.height)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}

// eventDetailLines is the least height of the selected event's panel:
// what it is and whom it concerns, then its detail on three lines. A
// longer detail takes more, up to half the view, so an error is read
// whole rather than cut.
const eventDetailLines = 5

// detailHeight is the rows the open event's panel takes with the blank
// line above it; 0 while none is open.
func (v *eventsView) detailHeight() int {
	if !v.open || v.scroll.cursor >= len(v.rows) {
		return 0
	}
	return 1 + len(v.detailLines(v.c.data.events.at(v.rows[v.scroll.cursor])))
}

// detailLines shows e in full, which the table's columns cut short.
func (v *eventsView) detailLines(e *source.Event) []string {
	st := v.c.styles
	label := func(s string) string { return st.dim.Render(pad(s, 9, false)) }
	head := fmt.Sprintf("event #%d · %s · %s", e.Seq, e.Type, e.Time.In(v.c.loc).Format("2006-01-02 15:04:05.000"))
	if e.Informer != "" {
		head += " · " + e.Informer
	}
	who := joinNonEmpty(" · ", e.Listener, e.Key)
	detail := eventDetail(e)
	out := []string{st.bold.Render(head), label("about") + orDash(who)}
	text := wrapText(orDash(detail), max(v.c.width-9, 10))
	// Only a detail taller than half the view is cut; the table keeps the rest.
	if most := max(eventDetailLines, v.c.height/2) - 2; len(text) > most {
		text = text[:most]
		text[most-1] = truncate(text[most-1]+" …", max(v.c.width-9, 10))
	}
	for i, l := range text {
		name := ""
		if i == 0 {
			name = "detail"
		}
		out = append(out, label(name)+l)
	}
	for len(out) < eventDetailLines {
		out = append(out, "")
	}
	return out
}

// eventSubject is the listener and key of e in w cells: a long listener
// name gives up its middle, down to half the cells, so the key shows too.
func eventSubject(e *source.Event, w int) string {
	if e.Listener == "" || e.Key == "" {
		return e.Listener + e.Key
	}
	name := middleEllipsis(e.Listener, max(w-width(e.Key)-1, (w-1)/2))
	return name + " " + e.Key
}

func isProblem(t source.EventType) bool {
	return t == source.EventWatchError || t == source.EventHandlerPanic || t == source.EventError
}

func eventDetail(e *source.Event) string {
	switch e.Type {
	case source.EventStalled, source.EventRecovered:
		return stallDetail(e)
	}
	parts := []string{}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	if e.Count != 0 {
		parts = append(parts, "n="+humanize.CountShort(e.Count))
	}
	if e.Duration != 0 {
		parts = append(parts, humanize.Duration(e.Duration))
	}
	return strings.Join(parts, " ")
}

// dropped is the sentence on what the log lacks, fitted to the view's
// width (longest wording first); "" when it lacks nothing.
func (v *eventsView) dropped() string {
	log := &v.c.data.events
	items, life := log.items.overwritten, log.life.overwritten
	missed, lifeLost := v.c.data.missed, log.life.overwritten+v.c.data.missedLife
	if items+life+missed == 0 {
		return ""
	}
	n := humanize.CountShort[uint64]
	// Each clause in three lengths: what went, then why, then what stays.
	var what, why [3]string
	switch {
	case missed > 0 && lifeLost == 0:
		what = [3]string{n(missed) + " watch events, pops, store updates and callbacks were never read", n(missed) + " per-item events were never read", n(missed) + " per-item events never read"}
		why = [3]string{": they came faster than the dashboard reads", ": they came too fast", ""}
	case missed > 0:
		what = [3]string{n(missed) + " events were never read, lifecycle events among them", n(missed) + " events were never read", n(missed) + " never read"}
		why = [3]string{": they came faster than the dashboard reads", "", ""}
	}
	over := [3]string{}
	switch {
	case items+life == 0:
	case life == 0:
		over = [3]string{n(items) + " older watch events, pops, store updates and callbacks were overwritten to keep the newest " + humanize.CountShort(eventLogSize), n(items) + " older per-item events were overwritten", n(items) + " older overwritten"}
	default:
		over = [3]string{n(items) + " older per-item and " + n(life) + " older lifecycle events were overwritten", n(items+life) + " older events were overwritten", n(items+life) + " older overwritten"}
	}
	kept := ""
	if lifeLost == 0 {
		kept = "; lifecycle events are all kept"
	}
	var variants []string
	for i := range 3 {
		for _, k := range []string{kept, ""} {
			clauses := []string{}
			if what[i] != "" {
				clauses = append(clauses, what[i]+why[i])
			}
			if over[i] != "" {
				clauses = append(clauses, over[i])
			}
			variants = append(variants, "↑ "+strings.Join(clauses, "; ")+k+".")
		}
	}
	return firstFitting(v.c.width, variants...)
}

func (v *eventsView) summary() string {
	st := v.c.styles
	emitted := v.c.data.eventStats.Emitted
	missed, over := v.c.data.missed, v.c.data.events.overwritten()
	scope := v.c.data.current
	if v.all {
		scope = "all informers"
	}
	parts := []string{
		st.bold.Render(fmt.Sprintf("%s of %s events", humanize.CountShort(len(v.rows)), humanize.CountShort(v.c.data.events.len()))),
		humanize.CountShort(emitted) + " emitted",
	}
	switch {
	case missed == 0 && over == 0:
		parts = append(parts, "0 dropped")
	default:
		if missed > 0 {
			// Per-item events only, unless the source dropped lifecycle
			// events meanwhile (dataState.missedLife).
			txt := humanize.CountShort(missed) + " never read"
			if v.c.data.missedLife > 0 {
				txt = st.bad.Render(txt)
			}
			parts = append(parts, txt)
		}
		if over > 0 {
			// Lifecycle events have their own, longer log; what turns over
			// is per-item events, the log working as meant: a count, not a
			// warning, unless lifecycle events went too.
			txt := humanize.CountShort(over) + " older overwritten"
			if v.c.data.events.life.overwritten > 0 {
				txt = st.warn.Render(txt)
			}
			parts = append(parts, txt)
		}
	}
	kind := "type: " + eventCategories[v.category].name
	if types, others, ok := v.narrated(); ok {
		// What the narration lists comes before the log's own counts, and
		// they give way to it: no type is cut from the line.
		kind, scope = narratedScope(types, v.c.data.current, others)
		return fitParts(st.dim.Render(" · "), v.c.width, append([]string{parts[0], kind, scope}, parts[1:]...)...)
	}
	parts = append(parts, kind, scope)
	return joinNonEmpty(st.dim.Render(" · "), parts...)
}
