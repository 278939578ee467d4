package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// listenersView is the table of event handlers: backlog, throughput,
// latency and health, stalled ones first.
type listenersView struct {
	c        *common
	scroll   scroller
	rows     []rankedListener
	detail   bool   // showing the selected listener's details
	informer string // whose listeners are shown; a switch starts over
	sortBy   listenerSort
	// backlog is the head of the open listener's backlog, read off the
	// UI goroutine while its detail is shown (source.ListenerReader).
	backlog *listenerBacklogMsg
}

// backlogShown is how many notifications of a backlog the detail lists.
const backlogShown = 8

// listenerBacklogMsg delivers the head of one listener's backlog.
type listenerBacklogMsg struct {
	informer, listener string
	pending            []source.Pending
}

// backlogCmd reads the selected listener's backlog head; nil when the
// source cannot tell or no detail is shown.
func (v *listenersView) backlogCmd() tea.Cmd {
	r := v.c.caps.owes
	if r == nil || len(v.rows) == 0 || v.scroll.cursor >= len(v.rows) || isClientGo(v.c.snap()) {
		return nil
	}
	inf, name := v.c.data.current, v.rows[v.scroll.cursor].stats.Name
	return func() tea.Msg {
		return listenerBacklogMsg{informer: inf, listener: name, pending: safePending(r.ListenerBacklog(inf, name, backlogShown))}
	}
}

// listenerSort orders the table: by health (stalled first), or as k9s
// sorts a column, by backlog or by latency, largest first.
type listenerSort int

const (
	sortHealth listenerSort = iota
	sortPending
	sortLatency
)

func (v *listenersView) sortName() string {
	switch v.sortBy {
	case sortPending:
		return "pending"
	case sortLatency:
		return "latency"
	}
	return ""
}

// sortRows applies the chosen order; stable, so ties keep the health order.
func (v *listenersView) sortRows() {
	switch v.sortBy {
	case sortPending:
		sort.SliceStable(v.rows, func(i, j int) bool { return v.rows[i].stats.Pending > v.rows[j].stats.Pending })
	case sortLatency:
		sort.SliceStable(v.rows, func(i, j int) bool { return v.rows[i].stats.LatencyP99 > v.rows[j].stats.LatencyP99 })
	}
}

func newListenersView(c *common) *listenersView { return &listenersView{c: c} }

func (v *listenersView) name() string    { return "Listeners" }
func (v *listenersView) capturing() bool { return false }

func (v *listenersView) shortHelp() []key.Binding {
	k := v.c.keys
	if v.detail {
		return []key.Binding{k.Back, k.Stall}
	}
	return []key.Binding{k.Up, k.Down, k.Open, k.Stall, k.SortPending, k.SortLatency}
}

func (v *listenersView) resize() {
	v.scroll.setHeight(v.c.height - 2) // summary line and column titles
}

// refresh re-ranks the listeners and keeps the cursor on the same one.
func (v *listenersView) refresh() tea.Cmd {
	if v.informer != v.c.data.current {
		v.informer, v.detail = v.c.data.current, false
		v.scroll.top()
	}
	s := v.c.snap()
	sel := v.c.data.selectedListener
	v.rows = rankListeners(s.Listeners, v.c.now(), v.c.data.history(), v.c.stallAfter)
	v.sortRows()
	v.scroll.setLen(len(v.rows))
	for i, r := range v.rows {
		if r.stats.Name == sel {
			v.scroll.cursor = i
			v.scroll.clamp()
			break
		}
	}
	v.publishSelection()
	return v.backlogCmd()
}

// publishSelection tells the root which listener the stall key acts on.
func (v *listenersView) publishSelection() {
	if len(v.rows) == 0 {
		v.c.data.selectedListener = ""
		return
	}
	v.c.data.selectedListener = v.rows[v.scroll.cursor].stats.Name
}

func (v *listenersView) update(msg tea.Msg) tea.Cmd {
	if bm, ok := msg.(listenerBacklogMsg); ok {
		v.backlog = &bm
		return nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := v.c.keys
	switch {
	case v.detail && key.Matches(km, k.Back):
		v.detail = false
	case !v.detail && key.Matches(km, k.Open) && len(v.rows) > 0:
		v.detail = true
		return v.backlogCmd()
	case !v.detail && key.Matches(km, k.SortPending, k.SortLatency):
		want := sortPending
		if key.Matches(km, k.SortLatency) {
			want = sortLatency
		}
		if v.sortBy == want {
			want = sortHealth // a second press goes back to stalled first
		}
		v.sortBy = want
		return v.refresh()
	case !v.detail && v.scroll.handleKey(km, k):
		v.publishSelection()
		return v.backlogCmd()
	}
	return nil
}

const (
	lcName = iota
	lcPending
	lcCapacity
	lcHighWater
	lcDelivered
	lcRate
	lcP50
	lcP99
	lcInCallback
	lcSynced
	lcPanics
	lcTrend
	lcTombstones
	lcBehind
	lcMutations
	lcStuck
)

var listenerColumns = []column{
	{title: "LISTENER", width: 12, flex: true, maxw: 32, id: lcName},
	{title: "PENDING", width: 7, right: true, id: lcPending},
	{title: "BEHIND", width: 6, right: true, prio: 2, id: lcBehind},
	{title: "CAP", width: 6, right: true, prio: 5, id: lcCapacity},
	{title: "HIGH", width: 6, right: true, prio: 6, id: lcHighWater},
	{title: "DELIVERED", width: 9, right: true, prio: 4, id: lcDelivered},
	{title: "RATE", width: 7, right: true, prio: 1, id: lcRate},
	{title: "P50", width: 6, right: true, prio: 7, id: lcP50},
	{title: "P99", width: 6, right: true, prio: 3, id: lcP99},
	{title: "IN CALLBACK", width: 13, prio: 1, id: lcInCallback},
	{title: "SYNC", width: 4, prio: 2, id: lcSynced},
	{title: "PANIC", width: 5, right: true, prio: 3, id: lcPanics},
	{title: "TOMB", width: 4, right: true, prio: 4, id: lcTombstones},
	// Cache mutations are counted only with mutation attribution on, so the
	// column is the first to go when space is short; the drill-in has them.
	{title: "MUT", width: 4, right: true, prio: 8, id: lcMutations},
	{title: "BACKLOG TREND", width: 13, flex: true, maxw: historyPoints + 2, prio: 2, id: lcTrend},
}

// stuckColumn names the code a stalled call is stuck in. It is shown only
// while some listener's is known, as wide as the longest name up to 40
// cells, and goes before the latency and panic columns when space is
// short: the summary line and the drill-in name the code too.
var stuckColumn = column{title: "STUCK IN", width: 12, maxw: 40, prio: 4, id: lcStuck}

// columns are the table's columns for the listeners shown.
func (v *listenersView) columns() []column {
	stuck := stuckColumn
	known := false
	for _, r := range v.rows {
		if f := r.stats.Frame; f != nil {
			known = true
			stuck.width = min(max(stuck.width, width(f.Function)), stuck.maxw)
		}
	}
	if !known {
		return listenerColumns
	}
	cols := slices.Clone(listenerColumns)
	// After IN CALLBACK, whose call it is.
	at := slices.IndexFunc(cols, func(c column) bool { return c.id == lcInCallback }) + 1
	return slices.Insert(cols, at, stuck)
}

func (v *listenersView) render() string {
	if v.detail && len(v.rows) > 0 {
		return fit(strings.Join(v.renderDetail(v.rows[v.scroll.cursor]), "\n"), v.c.width, v.c.height)
	}
	st := v.c.styles
	cols := layoutColumns(v.c.focusColumns(v.columns()), v.c.width)
	lines := make([]string, 0, v.c.height)
	lines = append(lines, v.summary(), st.colHead.Render(renderHeader(cols)))
	if len(v.rows) == 0 {
		lines = append(lines, st.dim.Render("no event handlers registered"))
		return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
	}
	lo, hi := v.scroll.window()
	cells := make([]string, lcStuck+1)
	for i := lo; i < hi; i++ {
		r := v.rows[i]
		v.cells(cells, r, cols)
		line := renderRow(cols, cells)
		switch {
		case i == v.scroll.cursor:
			line = st.cursorRow(line, v.c.width)
		case r.stall.stalled:
			line = st.warn.Render(line)
		}
		lines = append(lines, line)
	}
	// With rows to spare, show the selected listener's details under the
	// table, so moving the cursor is enough to inspect one.
	if len(v.rows) > 0 && hi-lo == len(v.rows) {
		detail := v.renderDetail(v.rows[v.scroll.cursor])
		if len(lines)+1+len(detail) <= v.c.height {
			lines = append(lines, "")
			lines = append(lines, detail...)
		}
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}

func (v *listenersView) cells(cells []string, r rankedListener, cols []column) {
	l := r.stats
	rates := v.c.data.history().latest().listenerRate
	trendW := columnWidth(cols, lcTrend)
	mark := "  "
	if r.stall.stalled {
		mark = "⚠ "
	}
	cells[lcName] = mark + middleEllipsis(l.Name, columnWidth(cols, lcName)-width(mark))
	cells[lcPending] = pendingText(l)
	cells[lcBehind] = behind(l, v.c.data.snapTaken())
	cells[lcCapacity] = capacityText(l)
	cells[lcHighWater] = humanize.CountShort(l.HighWater)
	cells[lcDelivered] = humanize.CountShort(l.Delivered.Total())
	cells[lcRate] = humanize.Rate(rates[l.Name])
	cells[lcP50] = latency(l.LatencyP50)
	cells[lcP99] = latency(l.LatencyP99)
	cells[lcInCallback] = "-"
	if l.InCallback != "" {
		cells[lcInCallback] = l.InCallback + " " + humanize.Duration(r.stall.inCallback)
		if width(cells[lcInCallback]) > columnWidth(cols, lcInCallback) {
			// The time is the figure; the callback gives up its "On".
			cells[lcInCallback] = strings.TrimPrefix(l.InCallback, "On") + " " + humanize.Duration(r.stall.inCallback)
		}
	}
	cells[lcSynced] = " " + yesNo(l.Synced)
	cells[lcPanics] = humanize.CountShort(l.Panics)
	cells[lcMutations] = humanize.CountShort(l.CacheMutations)
	if isClientGo(v.c.snap()) {
		cells[lcMutations] = "–" // client-go's own informer cannot tell
	}
	if isPprof(v.c.snap()) {
		// Read from goroutine dumps: no counts, and a call's time is
		// what consecutive dumps saw of it.
		for _, c := range []int{lcPending, lcBehind, lcHighWater, lcDelivered, lcPanics, lcMutations} {
			cells[c] = "?"
		}
		if l.InCallback != "" {
			cells[lcInCallback] = strings.TrimPrefix(l.InCallback, "On") + " ≥" + humanize.Duration(r.stall.inCallback)
		}
	}
	cells[lcStuck] = "-"
	if l.Frame != nil {
		cells[lcStuck] = middleEllipsis(l.Frame.Function, columnWidth(cols, lcStuck))
	}
	cells[lcTombstones] = humanize.CountShort(l.Delivered.Tombstones)
	if v.c.caps.fleet {
		// The agent's series hold neither (see fleetUnknown).
		cells[lcHighWater], cells[lcTombstones] = "–", "–"
	}
	cells[lcTrend] = sparkline(v.c.data.history().pending(l.Name), trendW)
	if r.stall.rising && trendW > 2 {
		cells[lcTrend] = sparkline(v.c.data.history().pending(l.Name), trendW-2) + " ↑"
	}
}

// summary is the line above the table: how many handlers, which need attention.
func (v *listenersView) summary() string {
	st := v.c.styles
	total, stalled, unsynced := len(v.rows), 0, 0
	var first *rankedListener
	for i := range v.rows {
		if v.rows[i].stall.stalled {
			if first == nil {
				first = &v.rows[i]
			}
			stalled++
		}
		if !v.rows[i].stats.Synced {
			unsynced++
		}
	}
	s := humanize.PluralShort(total, "listener")
	if unsynced > 0 {
		s += fmt.Sprintf(" · %d syncing", unsynced)
	}
	if stalled == 0 {
		return st.bold.Render(s) + st.dim.Render(" · none stalled")
	}
	more := ""
	if stalled > 1 {
		more = fmt.Sprintf(" (+%d more)", stalled-1)
	}
	return st.bold.Render(s) + st.warn.Render(v.stalledSummary(first, v.c.width-width(s), more))
}

// stalledSummary is the summary's warning about the first stalled
// listener in w cells: its name, giving up its middle down to
// summaryNameWidth cells, and why; when that is still too wide, a stuck
// call names only its code (the table has the callback and its time).
func (v *listenersView) stalledSummary(r *rankedListener, w int, more string) string {
	l := r.stats
	say := func(reason string) string {
		prefix := " · ⚠ STALLED "
		room := w - width(prefix) - width(": "+reason+more)
		return prefix + middleEllipsis(l.Name, max(room, min(width(l.Name), summaryNameWidth))) + ": " + reason + more
	}
	msg := say(r.stall.reason(l, v.c.stallAfter))
	if width(msg) > w && l.Frame != nil && r.stall.inCallback > v.c.stallAfter {
		msg = say("stuck in " + l.Frame.Function)
	}
	return msg
}

// summaryNameWidth is the least the summary line shortens a stalled
// listener's name to, so the name still says which it is.
const summaryNameWidth = 12

// detailHead names the listener, and why it is stalled; a long name gives
// up its middle so the reason fits, down to 32 cells.
func (v *listenersView) detailHead(r rankedListener) string {
	st := v.c.styles
	l := r.stats
	stall := ""
	if r.stall.stalled {
		stall = "⚠ STALLED: " + r.stall.reason(l, v.c.stallAfter)
	}
	room := v.c.width - width("listener ")
	if stall != "" {
		room -= 2 + width(stall)
	}
	head := st.bold.Render("listener " + middleEllipsis(l.Name, max(room, min(width(l.Name), 32))))
	if stall != "" {
		head += "  " + st.warn.Render(stall)
	}
	return head
}

// renderDetail describes one listener, under the table or on its own.
func (v *listenersView) renderDetail(r rankedListener) []string {
	st := v.c.styles
	l := r.stats
	h := v.c.data.history()
	row := func(label, value string) string {
		return st.dim.Render(pad(label, 14, false)) + " " + value
	}
	d := l.Delivered
	lines := append([]string{v.detailHead(r)}, v.pendingLines(l, row)...)
	if isPprof(v.c.snap()) {
		// Read from goroutine dumps: no counts; a call's time is what
		// consecutive dumps saw of it.
		lines = append(lines, row("delivered", st.dim.Render("? "+noAgent)))
		cb := "idle (in the newest goroutine dump)"
		if l.InCallback != "" {
			cb = fmt.Sprintf("%s for ≥ %s (consecutive goroutine dumps)", l.InCallback, humanize.Duration(r.stall.inCallback))
		}
		lines = append(lines, row("in callback", cb))
		if l.Frame != nil {
			lines = append(lines, row("", st.warn.Render(stuckIn(l.Frame, v.c.width-15))))
		}
		return lines
	}
	lines = append(lines,
		row("behind", behindText(l, v.c.data.snapTaken())),
		row("delivered", fmt.Sprintf("%s  (add %s · update %s · delete %s · sync %s)",
			humanize.CountShort(d.Total()), humanize.CountShort(d.Add), humanize.CountShort(d.Update), humanize.CountShort(d.Delete), humanize.CountShort(d.Sync))),
		row("tombstones", v.fleetUnknown(humanize.CountShort(d.Tombstones)+" OnDelete with a DeletedFinalStateUnknown"+st.dim.Render(" (a delete inferred at a relist)"))),
		row("rate", humanize.Rate(h.latest().listenerRate[l.Name])),
		row("latency", "p50 "+latency(l.LatencyP50)+" · p99 "+latency(l.LatencyP99)),
	)
	cb := "idle"
	if l.InCallback != "" {
		cb = joinNonEmpty(" ", l.InCallback, l.InCallbackKey) + " for " + humanize.Duration(r.stall.inCallback)
	}
	lines = append(lines, row("in callback", cb))
	if l.Frame != nil {
		lines = append(lines, row("", st.warn.Render(stuckIn(l.Frame, v.c.width-15))))
	}
	lines = append(lines, row("synced", v.syncedText(l)))
	lines = append(lines, v.owesLines(l, row)...)
	panics := humanize.CountShort(l.Panics)
	if l.LastPanic != "" {
		panics += "  last: " + oneLine(l.LastPanic)
	}
	lines = append(lines, row("panics", panics))
	lines = append(lines, mutationLines(l, row, st, v.c.now())...)
	lines = append(lines,
		row("resync", v.fleetUnknown("requested "+resyncText(l.RequestedResync)+" · effective "+resyncText(l.ResyncPeriod))),
		row("backlog trend", sparkline(h.pending(l.Name), min(len(h.pending(l.Name)), max(v.c.width-16, 1)))+
			st.dim.Render("  "+perColumn(historySpacing))),
	)
	return lines
}

// pendingLines are the backlog's size and its buffer's, when known; a
// count from outside the informer says once that it is a lower bound.
func (v *listenersView) pendingLines(l *source.Listener, row func(string, string) string) []string {
	if isPprof(v.c.snap()) {
		return []string{row("pending", v.c.styles.dim.Render("? "+noAgent))}
	}
	buffer := "high-water " + humanize.CountShort(l.HighWater)
	if v.c.caps.fleet {
		buffer = "" // the series hold the capacity only
	}
	if l.Capacity > 0 {
		buffer = joinNonEmpty(", ", "buffer capacity "+capacityText(l), buffer)
	}
	pending := pendingText(l)
	if buffer != "" {
		pending += " (" + buffer + ")"
	}
	out := []string{row("pending", pending)}
	if l.PendingEstimated {
		for _, line := range wrapText(clientGoBacklog, v.c.width-15) {
			out = append(out, row("", v.c.styles.dim.Render(line)))
		}
	}
	return out
}

// fleetUnknown is known, or in a fleet, where the agent's series do not
// hold it (high-water marks, tombstones, resync periods), a dash that says
// where to read it.
func (v *listenersView) fleetUnknown(known string) string {
	if !v.c.caps.fleet {
		return known
	}
	return v.c.styles.dim.Render("– not in the series: enter on the Fleet view (f) attaches")
}

// syncedText says whether and when the registration reached HasSynced.
func (v *listenersView) syncedText(l *source.Listener) string {
	switch {
	case !l.Synced:
		return yesNo(false) + " not yet: its share of the initial list is still being delivered"
	case l.SyncedAt.IsZero():
		return yesNo(true)
	}
	return yesNo(true) + " HasSynced at " + l.SyncedAt.In(v.c.loc).Format("15:04:05.000") +
		", " + humanize.Duration(since(v.c.now(), l.SyncedAt)) + " ago"
}

// owesLines list the notifications at the head of the backlog, oldest
// first, when the source can read them.
func (v *listenersView) owesLines(l *source.Listener, row func(string, string) string) []string {
	st := v.c.styles
	b := v.backlog
	switch {
	case v.c.caps.owes == nil:
		return nil
	case isClientGo(v.c.snap()):
		return []string{row("owes", st.dim.Render("not listed: client-go's own informer keeps its backlog to itself"))}
	}
	if l.Pending == 0 {
		return []string{row("owes", "nothing: the backlog is empty")}
	}
	if b == nil || b.informer != v.c.data.current || b.listener != l.Name {
		return []string{row("owes", humanize.CountShort(l.Pending)+" notifications"+st.dim.Render(" (reading…)"))}
	}
	out := []string{row("owes", fmt.Sprintf("%s notifications; next, oldest first:", humanize.CountShort(l.Pending)))}
	for _, p := range b.pending {
		line := p.Callback + " " + p.Key
		if p.Sync {
			line += st.dim.Render(" (resync)")
		}
		out = append(out, row("", line))
	}
	if rest := l.Pending - len(b.pending); rest > 0 && len(b.pending) > 0 {
		out = append(out, row("", st.dim.Render(fmt.Sprintf("… %s more", humanize.CountShort(rest)))))
	}
	return out
}

func resyncText(d time.Duration) string {
	if d <= 0 {
		return "never"
	}
	return humanize.Duration(d)
}

// behind is the age of the oldest notification a listener has not
// handled yet: how far behind the cache its handler is; "-" when none.
func behind(l *source.Listener, taken time.Time) string {
	age := l.OldestPendingAge(taken)
	if age <= 0 {
		return "-"
	}
	return humanize.Duration(age)
}

func behindText(l *source.Listener, taken time.Time) string {
	if l.OldestPendingAge(taken) <= 0 {
		return "up to date: nothing waits"
	}
	return behind(l, taken) + " — the oldest notification it has not handled yet waited this long"
}
