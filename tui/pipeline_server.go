package tui

import (
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// The server side of a watch: when the source runs the API server itself
// (the demo), the pipeline starts before the reflector, at etcd, and draws
// the server's watch path as kube-apiserver v1.37 has it: etcd → the etcd3
// storage watcher → the cacher's watch cache → its incoming channel and
// dispatch → one buffer per watcher; the "API server" stage under them is then the
// stream to this informer. Folded, the whole path is one line.

// watchPath is the current informer's server watch path, nil when the
// source does not know it (a real cluster).
func (v *pipelineView) watchPath(s *source.Informer) (source.ServerStats, bool) {
	st, ok := v.c.data.server[s.Name]
	return st, ok && st.Path != nil
}

// baseStageRows is how many rows the stages from "API server" to
// "Processor" take with their connectors.
const baseStageRows = 9

// serverExpanded is whether the server side is drawn as stages: as the
// user last chose with the key, else when it fits beside every listener.
func (v *pipelineView) serverExpanded(s *source.Informer, st source.ServerStats) bool {
	if v.serverOpen != nil {
		return *v.serverOpen
	}
	return v.serverExcess(s, len(v.serverStages(st, 0, len(st.Path.Watchers)))) <= 0
}

// serverExcess is how many rows the pipeline lacks when the server side
// takes rows lines, the other stages keep their connectors and every
// listener is shown.
func (v *pipelineView) serverExcess(s *source.Informer, rows int) int {
	need := rows + baseStageRows + len(s.Listeners)
	if len(v.c.data.workqueues) > 0 {
		need += 2 // their connector and a line
	}
	return need - v.c.height
}

// toggleServer folds or expands the server side; without a watch path it
// says why the key does nothing.
func (v *pipelineView) toggleServer() tea.Cmd {
	s := v.c.snap()
	st, ok := v.watchPath(s)
	if !ok {
		k := v.c.keys.ServerSide.Help().Key
		return func() tea.Msg {
			return controlMsg{err: fmt.Errorf("%s does nothing here: the API server's watch path (etcd, storage watcher, watch cache, watchers) is known only when informtop runs the server, as the demo does", k)}
		}
	}
	open := !v.serverExpanded(s, st)
	v.serverOpen = &open
	return nil
}

// update handles the server-side key; the pipeline has no other keys of
// its own.
func (v *pipelineView) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, v.c.keys.ServerSide) {
		return v.toggleServer()
	}
	return nil
}

// serverKey is the server-side key as the footer offers it, saying what
// pressing it will do; ok is false when there is no watch path to show.
func (v *pipelineView) serverKey() (key.Binding, bool) {
	s := v.c.snap()
	st, ok := v.watchPath(s)
	if !ok {
		return key.Binding{}, false
	}
	b := v.c.keys.ServerSide
	if v.serverExpanded(s, st) {
		b.SetHelp(b.Help().Key, "fold server side")
	} else {
		b.SetHelp(b.Help().Key, "expand server side")
	}
	return b, true
}

// serverRows lays out the server side: the lines above the "API server"
// stage, and how many of the other stages' connectors to leave out, from
// the top. Expanded on a short terminal, connectors go first, from the top
// down, then watchers beyond the first, so the listeners stay visible.
func (v *pipelineView) serverRows(s *source.Informer, st source.ServerStats) ([]string, int) {
	if !v.serverExpanded(s, st) {
		folded := v.serverFolded(st, v.c.width-v.stageWidth())
		out := []string{v.label("Server side") + folded[0]}
		for _, l := range folded[1:] {
			out = append(out, v.label("")+l)
		}
		return append(out, v.connector()), 0
	}
	n := len(st.Path.Watchers)
	excess := v.serverExcess(s, len(v.serverStages(st, 0, n)))
	if excess <= 0 {
		return v.serverStages(st, 0, n), 0
	}
	drop := min(excess, serverConnectors)
	excess -= drop
	dropBase := min(excess, baseConnectors)
	excess -= dropBase
	return v.serverStages(st, drop, max(n-excess, 1)), dropBase
}

const (
	serverConnectors = 4 // between the server stages, and to the API server
	baseConnectors   = 4 // from the API server to the processor
)

// serverStages are the expanded stages etcd, storage watcher, watch cache
// and watchers, then the connector to the API server stage, leaving out
// the first drop connectors; at most rows lines for the watchers' buffers.
func (v *pipelineView) serverStages(st source.ServerStats, drop, rows int) []string {
	p := st.Path
	w := v.c.width - v.stageWidth()
	groups := [][]string{
		{v.label("etcd") + v.etcdLine(p)},
		{v.label("Storage") + v.storageLine(p, w)},
		{v.label("Watch cache") + v.cacheLine(st, w)},
		append([]string{v.label("Watchers") + v.watchersLine(st)}, v.watcherLines(p.Watchers, rows)...),
	}
	var out []string
	for i, g := range groups {
		out = append(out, g...)
		if i >= drop {
			out = append(out, v.connector())
		}
	}
	return out
}

func (v *pipelineView) etcdLine(p *source.WatchPath) string {
	pending := "none pending"
	if p.EtcdPending > 0 {
		pending = v.c.styles.warn.Render(fmt.Sprintf("%s pending: the storage watcher's incoming channel is full", humanize.CountShort(p.EtcdPending)))
	}
	return v.join(fmt.Sprintf("revision %d", p.EtcdRevision), pending)
}

// storageLine is the etcd3 storage watcher's two channels (v1.37's
// incomingEventChan and resultChan, no high-water mark on either): etcd's
// events wait in the first to be decoded, decoded ones in the second for
// the cacher. The walk-through's etcd2-era watcher had an incoming and an
// outgoing channel too; the history note says so where there is room.
func (v *pipelineView) storageLine(p *source.WatchPath, w int) string {
	decoded := humanize.CountShort(p.Decoded) + " decoded"
	history := v.c.styles.dim.Render(" · the walk-through's etcd2-era watcher: incoming → translate → outgoing")
	// Where there is room, the channels go by their names in v1.37's
	// etcd3/watcher.go.
	named := "etcd3 watcher: " + v.join(v.fill("incomingEventChan", p.Incoming), v.fill("resultChan", p.Outgoing), decoded)
	line := "etcd3 watcher: " + v.join(v.fill("incoming", p.Incoming), v.fill("result", p.Outgoing), decoded)
	return firstFitting(w,
		named+history,
		line+history,
		named,
		line,
		"watcher: "+v.join(v.fill("in", p.Incoming), v.fill("result", p.Outgoing), decoded),
	)
}

// fill is "incoming 3/100", flagged when full.
func (v *pipelineView) fill(name string, b source.Buffer) string {
	fill := fmt.Sprintf("%s %s", name, bufferFill(b))
	if full(b) {
		fill = v.c.styles.warn.Render("⚠ " + fill + " full")
	}
	return fill
}

// buffer is "incoming 3/100, high-water 41" (long) or "in 3/100 (high
// 41)", flagged when full: the cacher's incoming channel, the one with a
// high-water mark.
func (v *pipelineView) buffer(name string, b source.Buffer, long bool) string {
	fill := v.fill(name, b)
	if long {
		return fill + ", high-water " + humanize.CountShort(b.HighWater)
	}
	return fill + " (high " + humanize.CountShort(b.HighWater) + ")"
}

func full(b source.Buffer) bool { return b.Cap > 0 && b.Len >= b.Cap }

// cacheLine is the watch cache's window and its traffic.
func (v *pipelineView) cacheLine(st source.ServerStats, w int) string {
	c := st.Path.Cache
	window := fmt.Sprintf("RV %d–%d", c.OldestRV, c.NewestRV)
	long, short := bookmarkPace(st.Path)
	return firstFitting(w,
		v.join("window "+window, fmt.Sprintf("%s/%s events", humanize.CountShort(c.Len), humanize.CountShort(c.Capacity)),
			humanize.CountShort(st.EventsReceived)+" received", humanize.CountShort(st.EventsDispatched)+" dispatched",
			humanize.PluralShort(st.Path.BookmarksSent, "bookmark")+" sent"+long),
		v.join(window, fmt.Sprintf("%s/%s", humanize.CountShort(c.Len), humanize.CountShort(c.Capacity)),
			humanize.CountShort(st.EventsReceived)+" in", humanize.CountShort(st.EventsDispatched)+" out", humanize.PluralShort(st.Path.BookmarksSent, "bookmark")+short),
	)
}

// bookmarkPace flags bookmarks sent faster than kube-apiserver sends them,
// as the demo does where it teaches them: " (every 1s, ×60 kube-apiserver's
// pace)" and " ×60"; empty at the real pace.
func bookmarkPace(p *source.WatchPath) (long, short string) {
	if p.BookmarkEvery <= 0 || p.RealBookmarks <= 0 || p.BookmarkEvery >= p.RealBookmarks {
		return "", ""
	}
	x := fmt.Sprintf("×%d", int(p.RealBookmarks/p.BookmarkEvery))
	return fmt.Sprintf(" (every %s, %s kube-apiserver's pace)", p.BookmarkEvery, x), " " + x
}

// watchersLine heads the watchers: how many are open, how many the server
// terminated for falling behind, and what each branch shows.
func (v *pipelineView) watchersLine(st source.ServerStats) string {
	n := len(st.Path.Watchers)
	open := humanize.CountShort(n) + " open"
	if n == 0 {
		open = "none open"
	}
	if e := st.Path.ErrorStreams; e > 0 {
		// A client's watch is open, yet no watcher serves it: say why.
		open += fmt.Sprintf(" (+%s answered with only an ERROR event, no watcher)", humanize.PluralShort(e, "stream"))
	}
	rest := v.join(open, v.terminated(st.TerminatedWatchers), humanize.CountShort(st.WatchEventsSent)+" events sent")
	in := st.Path.CacherIncoming
	long := v.join("cacher "+v.buffer("incoming", in, true), rest)
	return firstFitting(v.c.width-v.stageWidth(), long+v.c.styles.dim.Render(" · each: buffer, most held, sent, client"), long,
		v.join(v.buffer("incoming", in, false), rest), v.join(v.buffer("incoming", in, false), open, v.terminated(st.TerminatedWatchers)))
}

func (v *pipelineView) terminated(n uint64) string {
	t := humanize.CountShort(n) + " terminated"
	if n > 0 {
		t = v.c.styles.warn.Render(t + " (too slow)")
	}
	return t
}

// watcherLines draws one branch per watcher, blocked ones first, within
// rows lines; the rest are counted on a last line.
func (v *pipelineView) watcherLines(ws []source.WatcherBuffer, rows int) []string {
	if len(ws) == 0 || rows <= 0 {
		return nil
	}
	st := v.c.styles
	ranked := append([]source.WatcherBuffer(nil), ws...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Blocked && !ranked[j].Blocked })
	show := len(ranked)
	if show > rows {
		show = rows - 1
	}
	nameW, idW, fillW := 4, 2, 3
	for _, w := range ranked[:show] {
		nameW = max(nameW, width(clientName(w)))
		idW = max(idW, width(fmt.Sprintf("#%d", w.ID)))
		fillW = max(fillW, width(bufferFill(w.Buffer)))
	}
	nameW = min(nameW, 20)
	out := make([]string, 0, rows)
	for i, w := range ranked[:show] {
		branch := treeBranch(i, len(ranked))
		mark := "  "
		if w.Blocked {
			mark = "⚠ "
		}
		line := fmt.Sprintf("%s%s %s %s", mark, pad(fmt.Sprintf("#%d", w.ID), idW, false),
			pad(clientName(w), nameW, false), pad(bufferFill(w.Buffer), fillW, true))
		// The demo's own measure: v1.37's cacheWatcher keeps no high-water mark.
		rest := v.join("most held "+humanize.CountShort(w.Buffer.HighWater), humanize.CountShort(w.Sent)+" sent")
		if w.Bookmarks {
			rest = v.join(rest, "bookmarks")
		}
		switch {
		case w.Blocked:
			line = st.warn.Render(line+"  full, terminating unless it drains") + v.sep() + rest
		case full(w.Buffer):
			line += "  " + st.warn.Render("full") + v.sep() + rest
		default:
			line += v.sep() + rest
		}
		out = append(out, st.dim.Render(branch)+line)
	}
	if rest := len(ranked) - show; rest > 0 {
		more := fmt.Sprintf("     └── … %d more watchers", rest)
		if show == 0 {
			more = "     └── … " + humanize.PluralShort(rest, "watcher")
		}
		out = append(out, st.dim.Render(more))
	}
	return out
}

func clientName(w source.WatcherBuffer) string {
	if w.Client == "" {
		return "-"
	}
	return w.Client
}

func bufferFill(b source.Buffer) string {
	return humanize.CountShort(b.Len) + "/" + humanize.CountShort(b.Cap)
}

// serverFolded is the whole server side in one line of at most w cells,
// the longest wording that fits, or two lines where none does: every
// channel keeps its label and its figures.
func (v *pipelineView) serverFolded(st source.ServerStats, w int) []string {
	p := st.Path
	warn := v.c.styles.warn
	etcd := fmt.Sprintf("etcd %d", p.EtcdRevision)
	if p.EtcdPending > 0 {
		etcd += warn.Render(fmt.Sprintf(" (%s pending)", humanize.CountShort(p.EtcdPending)))
	}
	fill := func(name string, b source.Buffer) string {
		s := name + bufferFill(b)
		if full(b) {
			return warn.Render(s + " full")
		}
		return s
	}
	window := fmt.Sprintf("%d–%d", p.Cache.OldestRV, p.Cache.NewestRV)
	watchers := humanize.PluralShort(len(p.Watchers), "watcher")
	blocked := 0
	for _, w := range p.Watchers {
		if w.Blocked {
			blocked++
		}
	}
	if blocked > 0 {
		watchers += warn.Render(fmt.Sprintf(" (%d full)", blocked))
	}
	term := ""
	if st.TerminatedWatchers > 0 {
		term = ", " + warn.Render(humanize.CountShort(st.TerminatedWatchers)+" terminated")
	}
	arrow := v.c.styles.dim.Render(" → ")
	k := v.c.keys.ServerSide.Help().Key
	cacherIn := fill("cacher incoming ", p.CacherIncoming)
	long := etcd + arrow + "etcd3 watcher " + fill("incoming ", p.Incoming) + ", " + fill("result ", p.Outgoing) +
		arrow + fmt.Sprintf("watch cache %s (%s/%s)", window, humanize.CountShort(p.Cache.Len), humanize.CountShort(p.Cache.Capacity)) +
		arrow + cacherIn + arrow + watchers + term
	hint := v.c.styles.dim.Render(" · " + k + " expands")
	mid := etcd + arrow + "watcher " + fill("in ", p.Incoming) + " " + fill("result ", p.Outgoing) + arrow + "cache " + window + arrow + cacherIn + arrow + watchers + term
	// Narrow, the etcd3 watcher's two channels and the cacher's incoming
	// keep their labels; etcd's revision (the API server stage's RV) and
	// the watcher count go first, then the line breaks in two.
	chans := "watcher " + fill("in ", p.Incoming) + " " + fill("result ", p.Outgoing) + arrow + "cache " + window + arrow + "cacher " + fill("in ", p.CacherIncoming)
	variants := []string{long + hint, long, mid + hint, mid, etcd + arrow + chans + arrow + watchers + term, chans + arrow + watchers + term}
	if term == "" {
		variants = append(variants, chans)
	}
	for _, s := range variants {
		if width(s) <= w {
			return []string{s}
		}
	}
	return []string{
		firstFitting(w, etcd+arrow+"watcher "+fill("in ", p.Incoming)+" "+fill("result ", p.Outgoing)+arrow+"cache "+window,
			"watcher "+fill("in ", p.Incoming)+" "+fill("result ", p.Outgoing)+arrow+"cache "+window),
		firstFitting(w, arrow+"cacher "+fill("incoming ", p.CacherIncoming)+arrow+watchers+term, arrow+"cacher "+fill("in ", p.CacherIncoming)+arrow+watchers+term),
	}
}

// firstFitting is the first of variants (longest wording first) that fits
// in w cells, else the last one cut to w.
func firstFitting(w int, variants ...string) string {
	for _, s := range variants {
		if width(s) <= w {
			return s
		}
	}
	return truncate(variants[len(variants)-1], w)
}
