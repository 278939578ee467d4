package tui

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// pipelineView draws the informer as its stages, top to bottom in the order
// an object travels: API server, reflector, queue, indexer, processor and
// each listener, then the controller's workqueues when the source sees
// them (where a handler's key waits for a reconcile), then the watch event
// rates by type.
type pipelineView struct {
	c *common
	// serverOpen is the user's choice to fold (false) or expand (true) the
	// server side; nil leaves it to the terminal's height.
	serverOpen *bool
}

func newPipelineView(c *common) *pipelineView { return &pipelineView{c: c} }

func (v *pipelineView) name() string      { return "Pipeline" }
func (v *pipelineView) capturing() bool   { return false }
func (v *pipelineView) resize()           {}
func (v *pipelineView) refresh() tea.Cmd  { return nil }
func (v *pipelineView) stageWidth() int   { return 12 }
func (v *pipelineView) connector() string { return v.c.styles.dim.Render("     ▼") }
func (v *pipelineView) label(name string) string {
	return v.c.styles.stage.Render(pad(name, v.stageWidth(), false))
}
func (v *pipelineView) sep() string                 { return v.c.styles.dim.Render(" · ") }
func (v *pipelineView) join(parts ...string) string { return joinNonEmpty(v.sep(), parts...) }

// stageJoin joins a stage's parts, most important first, leaving out
// those at the end that do not fit beside the label: a figure is dropped
// whole, never cut.
func (v *pipelineView) stageJoin(parts ...string) string {
	return fitParts(v.sep(), v.c.width-v.stageWidth(), parts...)
}

// shortHelp offers the server-side key when the source knows the server's
// watch path, and the compare key when there is something to compare.
func (v *pipelineView) shortHelp() []key.Binding {
	var keys []key.Binding
	if b, ok := v.serverKey(); ok && !v.c.comparing() {
		keys = append(keys, b)
	}
	if v.c.peers() != nil {
		keys = append(keys, v.c.keys.Compare)
	}
	return keys
}

func (v *pipelineView) render() string {
	s := v.c.snap()
	if s.Name == "" {
		return fit(v.c.styles.dim.Render("waiting for the first snapshot…"), v.c.width, v.c.height)
	}
	if v.c.comparing() {
		return v.renderCompare()
	}
	height := v.c.height
	// The last lines are the peers the narration names, else one saying
	// where the side-by-side is.
	tail := peerLines(v.c, v.c.width)
	if len(tail) == 0 {
		if hint := compareHint(v.c); hint != "" {
			tail = []string{truncate(hint, v.c.width)}
		}
	}
	if most := max(height/3, 1); len(tail) > most {
		tail = tail[:most]
	}
	height -= len(tail)
	h := v.c.data.history()
	p := h.latest()
	// With the server's watch path, the stages start at etcd; the API
	// server stage is then the stream to this informer.
	var stages []string
	dropConnectors := 0
	st, withPath := v.watchPath(s)
	if withPath {
		stages, dropConnectors = v.serverRows(s, st)
	}
	stages = append(stages, v.label("API server")+v.apiLine(s, p))
	if !withPath {
		stages = append(stages, v.serverLines(s)...)
	}
	for i, stage := range []string{
		v.label("Reflector") + v.reflectorLine(s),
		v.label("Queue") + v.queueLine(s, p),
		v.label("Indexer") + v.indexerLine(s),
		v.label("Processor") + v.processorLine(s, p),
	} {
		if i >= dropConnectors {
			stages = append(stages, v.connector())
		}
		stages = append(stages, stage)
	}
	// Short of rows (a long note below), the arrows between stages go
	// first, from the top, so the listeners stay in view.
	for room := height - len(stages); room < min(len(s.Listeners), 3); room++ {
		i := slices.Index(stages, v.connector())
		if i < 0 {
			break
		}
		stages = slices.Delete(stages, i, i+1)
	}
	// The controller's workqueues, when the source sees them, are the last
	// stage: they come before the chart and take at most half the rows
	// left (at least their connector and a line), so a controller with
	// many queues does not hide the listeners.
	room := height - len(stages)
	queueRows := 0
	if n := len(v.c.data.workqueues); n > 0 {
		queueRows = min(1+n, max(room/2, 2))
		room -= queueRows
	}
	// Share the rows left: every listener if possible, the chart with at
	// least one row per event type, and taller series when there is room.
	lis := len(s.Listeners)
	chartMin := 2 + evKinds // blank line, title, one row per type
	listenerRows, perSeries := room, 0
	// Every listener before the chart: the chart only takes rows the
	// listeners leave.
	gap := true // a blank line between the listeners and the chart
	switch {
	case room >= lis+chartMin:
		listenerRows = lis
		perSeries = min(max((room-lis-2)/evKinds, 1), 3)
	case room == lis+chartMin-1:
		listenerRows, perSeries, gap = lis, 1, false
	}
	if n := len(v.c.data.workqueues); n > 0 && queueRows < 1+n {
		// Rows neither the listeners nor the chart use go to the queues.
		used := min(listenerRows, lis)
		if perSeries > 0 {
			used += 2 + evKinds*perSeries
		}
		queueRows = min(1+n, queueRows+max(room-used, 0))
	}
	lines := append(stages, v.listenerLines(s, h, v.c.now(), listenerRows)...)
	lines = append(lines, v.workqueueLines(queueRows)...)
	if perSeries > 0 && v.c.caps.fleet {
		lines = append(lines, "")
		for _, l := range wrapText(whySeriesOnly, v.c.width) {
			lines = append(lines, v.c.styles.dim.Render(l))
		}
	} else if perSeries > 0 {
		if gap {
			lines = append(lines, "")
		}
		lines = append(lines, v.chart(h, perSeries)...)
	}
	if len(lines) > height && height > 0 && lines[height-1] == v.connector() {
		// Cut short (a step's narration takes the rows): no arrow into
		// nothing.
		lines[height-1] = ""
	}
	out := fit(strings.Join(lines, "\n"), v.c.width, height)
	if len(tail) > 0 {
		out += "\n" + strings.Join(tail, "\n")
	}
	return out
}

func (v *pipelineView) apiLine(s *source.Informer, p *point) string {
	st := v.c.styles
	r := s.Reflector
	if v.c.caps.fleet {
		// The agent's series count no watch events and carry no
		// resourceVersion: say what they do say.
		return v.stageJoin(s.Resource, connShort(v.c, s), st.dim.Render(heardLine(s)))
	}
	parts := func(conn string) []string {
		return []string{s.Resource, "RV " + orDash(s.LastSyncResourceVersion), conn,
			humanize.Rate(p.eventRate[evAdded]+p.eventRate[evModified]+p.eventRate[evDeleted]) + " watch events",
			// Bookmarks are counted on the Reflector line, not as events.
			st.dim.Render(humanize.CountShort(r.WatchEvents-min(r.WatchBookmarks, r.WatchEvents)) + " total"),
			st.dim.Render(freshnessLine(s))}
	}
	// The error spelled out when it leaves room for the rate; the reason
	// line above the view has it whole anyway.
	long := parts(connState(v.c, s))
	if width(v.join(long[:4]...)) <= v.c.width-v.stageWidth() {
		return v.stageJoin(long...)
	}
	return v.stageJoin(parts(connShort(v.c, s))...)
}

func (v *pipelineView) reflectorLine(s *source.Informer) string {
	st := v.c.styles
	r := s.Reflector
	list := fmt.Sprintf("%s (%s", humanize.PluralShort(r.Lists, "list"), listHow(r))
	if v.c.caps.fleet {
		// Lists, pages, relists, watches and errors are series; the last
		// list's size and time, bookmarks and resyncs are not.
		return v.stageJoin(list+")", humanize.PluralShort(r.Relists, "relist"), humanize.PluralShort(r.Watches, "watch"),
			humanize.PluralShort(r.Errors, "error"))
	}
	if r.Lists > 0 && !r.ListInProgress {
		list += fmt.Sprintf(", last %s in %s", humanize.CountShort(r.LastListItems), humanize.Duration(r.LastListTime))
	}
	list += ")"
	if r.ListInProgress {
		list = st.warn.Render(fmt.Sprintf("%s: %s items so far", listingWord(r), humanize.CountShort(r.LastListItems)))
	}
	relists := humanize.PluralShort(r.Relists, "relist")
	if r.Relists > 0 {
		relists = st.warn.Render(relists)
	}
	errs := humanize.PluralShort(r.Errors, "error")
	if r.Errors > 0 {
		errs = st.bad.Render(errs)
	}
	return v.stageJoin(list, relists, humanize.PluralShort(r.Watches, "watch"), errs, humanize.PluralShort(r.WatchBookmarks, "bookmark"), resyncLine(s))
}

// resyncLine is the resync the reflector's timer drives, "resync 1s, 3s ·
// 12 resyncs": the listeners' periods (client-go v0.37 checks at the
// shortest and queues a resync only when one is due) and how many it
// queued; "" when no listener asked for one.
func resyncLine(s *source.Informer) string {
	var periods []time.Duration
	for _, l := range s.Listeners {
		if p := l.ResyncPeriod; p > 0 && !slices.Contains(periods, p) {
			periods = append(periods, p)
		}
	}
	if len(periods) == 0 && s.Reflector.Resyncs == 0 {
		return ""
	}
	slices.Sort(periods)
	words := make([]string, len(periods))
	for i, p := range periods {
		words[i] = humanize.Duration(p)
	}
	out := humanize.PluralShort(s.Reflector.Resyncs, "resync")
	if len(words) > 0 {
		out = "resync every " + strings.Join(words, ", ") + " · " + out
	}
	return out
}

// listHow says how the initial list came: paged LIST responses, or a
// WatchList stream, which has no pages to count.
func listHow(r source.Reflector) string {
	if r.ListStreamed {
		return "streamed (WatchList)"
	}
	return humanize.PluralShort(r.ListPages, "page")
}

// listingWord names a list in progress.
func listingWord(r source.Reflector) string {
	if r.ListStreamed {
		return "streaming (WatchList)"
	}
	return "listing"
}

func (v *pipelineView) queueLine(s *source.Informer, p *point) string {
	st := v.c.styles
	q := s.Queue
	kind := s.QueueKind
	if v.c.caps.fleet {
		oldest := ""
		if q.Depth > 0 {
			oldest = "oldest " + humanize.Duration(since(v.c.now(), q.OldestEnqueued))
		}
		return v.stageJoin("depth "+humanize.CountShort(q.Depth), oldest, st.dim.Render("no rows or flow in the series"))
	}
	if isClientGo(s) {
		// Nothing of the queue itself is known: no depth, rows or flow.
		return v.join(st.bold.Render(queueKindText(v.c, s)), v.queueState(s, "initial list not yet processed"),
			st.dim.Render("depth and rows not visible from outside"))
	}
	depth := fmt.Sprintf("depth %s", humanize.CountShort(q.Depth))
	if q.Deltas != q.Depth {
		depth += fmt.Sprintf(" (%s deltas)", humanize.CountShort(q.Deltas))
	}
	oldest := ""
	if q.Depth > 0 {
		oldest = "oldest " + humanize.Duration(since(v.c.now(), q.OldestEnqueued))
	}
	coalesced := ""
	if kind == source.DeltaFIFO {
		coalesced = humanize.CountShort(q.Coalesced) + " coalesced"
	}
	state := v.queueState(s, "initial list not yet processed")
	return v.stageJoin(st.bold.Render(kind.String()), depth, oldest,
		"in "+humanize.Rate(p.queueInRate), "out "+humanize.Rate(p.queueOutRate), coalesced, state)
}

func (v *pipelineView) indexerLine(s *source.Informer) string {
	st := s.Store
	if isClientGo(s) || v.c.caps.fleet {
		// client-go's own cache counts no changes and names no indexes,
		// and the agent's series carry only the count.
		return humanize.PluralShort(st.Objects, "object")
	}
	// The changes before the indexes: a learner checks them against the
	// queue's pops.
	return v.stageJoin(
		humanize.PluralShort(st.Objects, "object"),
		fmt.Sprintf("%s added, %s updated, %s deleted", humanize.CountShort(st.Adds), humanize.CountShort(st.Updates), humanize.CountShort(st.Deletes)),
		indexSummary(st.Indexes),
	)
}

// indexSummary renders "indexes: namespace 4, node 3": each index with its
// number of distinct values, in name order.
func indexSummary(idx map[string]int) string {
	if len(idx) == 0 {
		return "no indexes"
	}
	return "indexes: " + humanize.Tally(idx, func(name string, n int) string { return name + " " + humanize.CountShort(n) })
}

func (v *pipelineView) processorLine(s *source.Informer, p *point) string {
	st := v.c.styles
	sync, total := v.listenersSynced(s, p)
	return v.stageJoin(humanize.PluralShort(len(s.Listeners), "listener"), sync, "delivering "+humanize.Rate(total),
		st.dim.Render("each: pending, rate, state"))
}

// listenerLines draws one branch per listener of s, stalled first, within
// rows lines; the rest are summarised in a last "… n more" line. h is the
// informer's history and now the time its snapshot was taken.
func (v *pipelineView) listenerLines(s *source.Informer, h *history, now time.Time, rows int) []string {
	if rows <= 0 || len(s.Listeners) == 0 {
		return nil
	}
	st := v.c.styles
	ranked := rankListeners(s.Listeners, now, h, v.c.stallAfter)
	p := h.latest()
	show := len(ranked)
	if show > rows {
		show = rows - 1
	}
	nameW := 4
	for _, r := range ranked[:show] {
		nameW = max(nameW, width(r.stats.Name))
	}
	// Long names (client-go handlers are named after their function) get
	// more room on a wide screen.
	nameW = min(nameW, max(20, v.c.width/5))
	out := make([]string, 0, rows)
	for i, r := range ranked[:show] {
		branch := treeBranch(i, len(ranked))
		l := r.stats
		mark := "  "
		if r.stall.stalled {
			mark = "⚠ "
		}
		line := fmt.Sprintf("%s%s %7s %7s  ", mark, pad(middleEllipsis(l.Name, nameW), nameW, false),
			pendingText(l), humanize.Rate(p.listenerRate[l.Name]))
		switch {
		case r.stall.stalled:
			line = st.warn.Render(line + "STALLED " + r.stall.reason(l, v.c.stallAfter))
		case !l.Synced:
			line += st.warn.Render("✗ syncing")
		default:
			line += "✓ synced"
		}
		panics := ""
		if l.Panics > 0 {
			panics = st.bad.Render(humanize.PluralShort(l.Panics, "panic"))
		}
		// The panics give way rather than be cut (the Listeners view
		// has them).
		out = append(out, st.dim.Render(branch)+fitParts(st.dim.Render(" · "), v.c.width-width(branch), line, panics))
	}
	if show < len(ranked) {
		out = append(out, st.dim.Render(fmt.Sprintf("     └── … %d more (3: Listeners)", len(ranked)-show)))
	}
	return out
}

// Cells of a workqueue line, in display order.
const (
	wqName = iota
	wqDepth
	wqAdds
	wqRetries
	wqWaited
	wqWork
	wqUnfinished
	wqLongest
	wqCells
)

// workqueueColumns are a workqueue line's figures; a narrow terminal drops
// the highest prio first: the work in progress, then how long work took,
// then how long keys waited and the retries. The longest-running item is
// kept when it is why a queue is flagged.
var workqueueColumns = []column{
	{id: wqName, maxw: 24},
	{id: wqDepth},
	{id: wqAdds, prio: 1},
	{id: wqRetries, prio: 2},
	{id: wqWaited, prio: 3},
	{id: wqWork, prio: 5},
	{id: wqUnfinished, prio: 6},
	{id: wqLongest, prio: 4},
}

// rankedQueue is a workqueue with the reasons to flag it.
type rankedQueue struct {
	q      *source.Workqueue
	rising bool // its depth grew over the last few seconds
	stuck  bool // keys wait while one item has run past the stall threshold: "stalled"
}

func (r rankedQueue) flagged() bool { return r.rising || r.stuck }

// workqueueLines is the stage after the listeners: a connector, then one
// line per workqueue of the controller, flagged ones first, within rows
// lines; the rest are counted on a last line. Figures that do not fit the
// width are dropped for every line alike, so the columns stay aligned.
func (v *pipelineView) workqueueLines(rows int) []string {
	qs := v.c.data.workqueues
	if rows < 2 || len(qs) == 0 {
		return nil
	}
	st := v.c.styles
	ranked := make([]rankedQueue, len(qs))
	for i := range qs {
		q := &qs[i]
		ranked[i] = rankedQueue{q: q, rising: v.c.data.wqHist[q.Name].grew(q.Depth),
			stuck: q.Depth > 0 && q.LongestRunning > v.c.stallAfter}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].flagged() && !ranked[j].flagged() })
	show := len(ranked)
	if show > rows-1 {
		show = rows - 2
	}
	cols := append([]column(nil), workqueueColumns...)
	cells := make([][]string, show)
	for i, r := range ranked[:show] {
		cells[i] = v.workqueueCells(r)
		if r.stuck {
			cols[wqLongest].prio = 0
		}
		for j := range cols {
			cols[j].width = max(cols[j].width, width(cells[i][cols[j].id]))
		}
	}
	cols[wqName].width = min(cols[wqName].width, cols[wqName].maxw)
	cols = layoutColumns(cols, v.c.width-v.stageWidth())
	out := make([]string, 0, rows)
	out = append(out, v.connector())
	for i := range cells {
		out = append(out, v.label("Workqueue")+renderRow(cols, cells[i]))
	}
	if rest := len(ranked) - show; rest > 0 {
		label, more := v.label(""), fmt.Sprintf("… %d more workqueues", rest)
		if show == 0 {
			label, more = v.label("Workqueue"), "… "+humanize.PluralShort(rest, "workqueue")
		}
		out = append(out, label+st.dim.Render(more))
	}
	return out
}

// workqueueCells are one workqueue's figures; every cell after the name
// starts with the separator, so the columns read as a joined line.
func (v *pipelineView) workqueueCells(r rankedQueue) []string {
	st := v.c.styles
	q := r.q
	p := v.c.data.wqHist[q.Name]
	addRate := 0.0
	if p != nil {
		addRate = p.addRate
	}
	dot := st.dim.Render("·") + " "
	depth := "depth " + humanize.CountShort(q.Depth)
	if r.flagged() {
		var why []string
		if r.rising {
			why = append(why, "rising")
		}
		if r.stuck {
			why = append(why, "stalled")
		}
		depth = st.warn.Render("⚠ " + depth + " " + strings.Join(why, ", "))
	}
	longest := "longest " + humanize.Duration(q.LongestRunning)
	if r.stuck {
		longest = st.warn.Render(longest)
	}
	retries := "retries " + humanize.CountShort(q.Retries)
	if q.Retries > 0 {
		retries = st.warn.Render(retries)
	}
	out := make([]string, wqCells)
	out[wqName] = q.Name
	out[wqDepth] = dot + depth
	out[wqAdds] = dot + "adds " + humanize.Rate(addRate)
	out[wqRetries] = dot + retries
	out[wqWaited] = dot + "waited max " + humanize.Duration(q.QueueLatencyMax)
	out[wqWork] = dot + "work max " + humanize.Duration(q.WorkDurationMax)
	out[wqUnfinished] = dot + "unfinished " + humanize.Duration(q.UnfinishedWork)
	out[wqLongest] = dot + longest
	return out
}

// chart is the events per second by type, one sparkline per type, rows
// cells tall. All types share one logarithmic scale: a quiet type stays
// visible next to a busy one, and their heights still compare.
func (v *pipelineView) chart(h *history, rows int) []string {
	st := v.c.styles
	w := max(min(v.c.width-36, historyPoints), 8)
	p := h.latest()
	out := []string{st.stage.Render("events/s") + st.dim.Render(" by type, log scale, newest right, "+perColumn(historySpacing))}
	var series [evKinds][]float64
	hi := 0.0
	for k := range series {
		series[k] = h.series(func(p *point) float64 { return p.eventRate[k] })
		hi = max(hi, maxOf(series[k]))
	}
	for k := range series {
		logged := make([]float64, len(series[k]))
		for i, x := range series[k] {
			logged[i] = math.Log1p(x)
		}
		for i, row := range sparkRows(logged, w, rows, math.Log1p(hi)) {
			label, value := "", ""
			if i == rows-1 {
				label = evKindNames[k]
				value = fmt.Sprintf("%8s", humanize.Rate(p.eventRate[k])) + st.dim.Render("  peak "+humanize.Rate(maxOf(series[k])))
			}
			out = append(out, fmt.Sprintf("  %-9s %s %s", label, row, value))
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func joinNonEmpty(sep string, parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}

// queueState is the queue's condition worth a word on its stage, or "";
// notSynced is the wording for a queue still holding the initial list.
func (v *pipelineView) queueState(s *source.Informer, notSynced string) string {
	st := v.c.styles
	switch {
	case s.Queue.Closed:
		return st.bad.Render("closed")
	case s.Paused || v.c.data.paused:
		return st.warn.Render("PAUSED")
	case !s.Queue.Synced:
		return st.warn.Render(notSynced)
	}
	return ""
}

// serverLines is what the API server itself says about the resource (its
// watch cache), indented under the API server stage; none when the source
// does not read it. A sentence saying why there are no figures is wrapped
// at spaces, never cut: it says what to grant.
func (v *pipelineView) serverLines(s *source.Informer) []string {
	st, ok := v.c.data.server[s.Name]
	if !ok {
		return nil
	}
	var before *source.ServerStats
	if b, ok := v.c.data.serverBefore[s.Name]; ok {
		before = &b
	}
	text := say.ServerSince(st, before)
	if st.Available {
		return []string{v.label("") + text}
	}
	lines := wrapText(text, v.c.width-v.stageWidth())
	if len(lines) > serverWhyRows {
		lines = lines[:serverWhyRows]
		lines[serverWhyRows-1] = truncate(lines[serverWhyRows-1]+" …", v.c.width-v.stageWidth())
	}
	for i, l := range lines {
		lines[i] = v.label("") + v.c.styles.dim.Render(l)
	}
	return lines
}

// serverWhyRows is the most rows the server's sentence takes under its
// stage; the RBAC one takes two at 80 columns.
const serverWhyRows = 3

// listenersSynced is "2/3 synced" (flagged while any is not) and the
// listeners' summed delivery rate, for the processor stage.
func (v *pipelineView) listenersSynced(s *source.Informer, p *point) (string, float64) {
	synced, total := 0, 0.0
	for _, l := range s.Listeners {
		if l.Synced {
			synced++
		}
		total += p.listenerRate[l.Name]
	}
	sync := fmt.Sprintf("%d/%d synced", synced, len(s.Listeners))
	if synced < len(s.Listeners) {
		sync = v.c.styles.warn.Render(sync)
	}
	return sync, total
}

// treeBranch draws the i-th of n branches under a stage: the last one
// closes the tree.
func treeBranch(i, n int) string {
	if i == n-1 {
		return "     └─▶ "
	}
	return "     ├─▶ "
}

// whySeriesOnly is what the Pipeline, Queue and Events views say of a
// fleet's informers: Prometheus holds figures, not the events or rows
// they come from.
const whySeriesOnly = "Prometheus' series hold figures, not events or queued rows: enter on the Fleet view (f) attaches to the process for those"

// whyCountOnly is the Store view's whySeriesOnly.
const whyCountOnly = "Prometheus' series hold how many objects are cached, not the objects: enter on the Fleet view (f) attaches to the process for those"
