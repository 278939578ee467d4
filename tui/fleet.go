package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// viewFleet is the Fleet view's place in Model.views: after the five
// informer views, and only for a source that lists processes (a fleet).
const viewFleet = numViews

// fleetView lists a fleet's controller processes worst first, ranked by
// source.RankProcesses as --once --json ranks them. Enter attaches to the
// process under the cursor. State is touched only from Update and View.
type fleetView struct {
	c      *common
	rows   []fleetRow
	scroll scroller
	// chosen is the process under the cursor, by name, so the cursor
	// follows it when a refresh reorders the fleet.
	chosen string
}

// fleetRow is one process as the view shows it.
type fleetRow struct {
	p source.Process
	h source.Health
	// synced and total count its informers; backlog its listeners'
	// pending notifications.
	synced, total, backlog int
	estimated              bool
}

func newFleetView(c *common) *fleetView { return &fleetView{c: c} }

func (v *fleetView) name() string    { return "Fleet" }
func (v *fleetView) capturing() bool { return false }
func (v *fleetView) resize()         { v.scroll.setHeight(v.c.height - 2) }

func (v *fleetView) shortHelp() []key.Binding {
	k := v.c.keys
	open := k.Open
	open.SetHelp(k.Open.Help().Key, "attach")
	return []key.Binding{open, k.Up, k.Down}
}

// refresh ranks the processes of the latest frame at the frame's time,
// with the dashboard's stall threshold.
func (v *fleetView) refresh() tea.Cmd {
	d := v.c.data
	ps := source.CloneProcesses(d.processes)
	hs := source.RankProcesses(ps, d.snaps, v.c.now(), v.c.stallAfter)
	byName := make(map[string]*source.Informer, len(d.snaps))
	for i := range d.snaps {
		byName[d.snaps[i].Name] = &d.snaps[i]
	}
	v.rows = v.rows[:0]
	cursor := 0
	for i, p := range ps {
		r := fleetRow{p: p, h: hs[i], total: len(p.Informers)}
		for _, n := range p.Informers {
			inf := byName[n]
			if inf == nil {
				continue
			}
			if inf.Synced {
				r.synced++
			}
			for _, l := range inf.Listeners {
				r.backlog += l.Pending
				r.estimated = r.estimated || l.PendingEstimated
			}
		}
		if p.Name() == v.chosen {
			cursor = i
		}
		v.rows = append(v.rows, r)
	}
	v.scroll.setLen(len(v.rows))
	v.scroll.cursor = cursor
	v.scroll.clamp()
	if v.chosen == "" && len(v.rows) > 0 {
		// The first frame: the cursor is on the worst process, the other
		// views on the worst process that has informers (one Prometheus
		// cannot scrape, first, has none to show).
		v.chosen = v.rows[0].p.Name()
		for _, r := range v.rows {
			if name := cmp.Or(r.h.Informer, first(r.p.Informers)); name != "" {
				if name == d.current {
					return nil
				}
				return func() tea.Msg { return fleetSelectMsg{informer: name} }
			}
		}
	}
	return nil
}

// first is the first of names, "" when there is none.
func first(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// fleetSelectMsg asks the dashboard to show an informer of the process
// under the cursor in the other views, and the header.
type fleetSelectMsg struct{ informer string }

// choose makes the process under the cursor the chosen one, and its worst
// informer (else its first) the one the other views show.
func (v *fleetView) choose() tea.Cmd {
	r := v.current()
	if r == nil {
		return nil
	}
	v.chosen = r.p.Name()
	name := r.h.Informer
	if name == "" && len(r.p.Informers) > 0 {
		name = r.p.Informers[0]
	}
	if name == "" || name == v.c.data.current {
		return nil
	}
	return func() tea.Msg { return fleetSelectMsg{informer: name} }
}

func (v *fleetView) update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if v.scroll.handleKey(km, v.c.keys) {
		return v.choose()
	}
	if key.Matches(km, v.c.keys.Open) {
		r := v.current()
		if r == nil {
			return nil
		}
		p := r.p
		return func() tea.Msg { return attachAskMsg{p: p} }
	}
	return nil
}

// current is the row under the cursor; nil when there is none.
func (v *fleetView) current() *fleetRow {
	if v.scroll.cursor < 0 || v.scroll.cursor >= len(v.rows) {
		return nil
	}
	return &v.rows[v.scroll.cursor]
}

const (
	fcProcess = iota
	fcState
	fcWorst
	fcBacklog
	fcInformers
	fcAgent
)

var fleetColumns = []column{
	{title: "PROCESS", width: 20, flex: true, maxw: 28, id: fcProcess},
	{title: "STATE", width: 10, id: fcState},
	{title: "WORST", width: 24, flex: true, id: fcWorst},
	{title: "BACKLOG", width: 7, right: true, id: fcBacklog},
	{title: "INFORMERS", width: 9, right: true, prio: 1, id: fcInformers},
	{title: "AGENT", width: 21, prio: 2, id: fcAgent},
}

func (v *fleetView) render() string {
	st := v.c.styles
	w := v.c.width
	if len(v.rows) == 0 {
		return st.dim.Render("no controller processes yet: " + say.Status(v.c.data.status, v.c.now()))
	}
	spec := slices.Clone(fleetColumns)
	if w < 140 {
		// AGENT is what Enter dials; WORST is why to press it, and
		// keeps the room for its informer, listener and frame.
		spec = slices.DeleteFunc(spec, func(c column) bool { return c.id == fcAgent })
	}
	// PROCESS is as wide as its longest name, up to its widest (more from
	// 140 columns), so names show whole where they can; what is left goes
	// to WORST: it says why.
	widest := spec[fcProcess].maxw
	if w >= 140 {
		widest = 44
	}
	spec[fcProcess].flex = false
	for _, r := range v.rows {
		spec[fcProcess].width = max(spec[fcProcess].width, min(width(r.p.Name()), widest))
	}
	if w < 120 {
		spec[fcWorst].width = 22
	}
	cols := layoutColumns(spec, w)
	lines := []string{st.dim.Render(fmt.Sprintf("%s, worst first · enter attaches to the process's agent",
		humanize.Plural(len(v.rows), "controller process"))), st.bold.Render(renderHeader(cols))}
	now := v.c.now()
	lo, hi := v.scroll.window()
	for i := lo; i < hi; i++ {
		r := v.rows[i]
		cells := make([]string, fcAgent+1)
		cells[fcProcess] = processCell(r.p, columnWidth(cols, fcProcess))
		cells[fcState] = troubleWord(r.h)
		cells[fcWorst] = fitWorst(r.h, now, columnWidth(cols, fcWorst), w >= 120)
		cells[fcBacklog] = strconv.Itoa(r.backlog)
		if r.estimated && r.backlog > 0 {
			cells[fcBacklog] = "≥" + cells[fcBacklog]
		}
		cells[fcInformers] = fmt.Sprintf("%d/%d", r.synced, r.total)
		cells[fcAgent] = orDash(r.p.Agent)
		if r.p.Pprof {
			// Its workqueue series alone put it here: no agent, so its
			// informers are known only once attached.
			cells[fcWorst] = truncate("no agent: enter reads its goroutine dumps", columnWidth(cols, fcWorst))
			cells[fcBacklog], cells[fcInformers], cells[fcAgent] = "?", "?", "none (pprof)"
		}
		line := renderRow(cols, cells)
		switch {
		case i == v.scroll.cursor:
			line = st.cursorRow(line, w)
		default:
			line = troubleStyled(st, r.h.Trouble, line)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), w, v.c.height)
}

// processCell is the PROCESS cell in w cells: the name whole where it
// fits. A name too long keeps its start (cluster, namespace, the pod's
// first letters) and, for a pod, the last dash-separated part of the
// pod's name, which is what tells the replicas of one workload apart
// (orders-7d9c5b6f4-x2x7q and orders-7d9c5b6f4-9k2lm, web-0 and web-1):
// cut at its end, they would read the same. Anything else is cut at its
// end.
func processCell(p source.Process, w int) string {
	name := p.Name()
	if width(name) <= w {
		return name
	}
	pod := p.Labels["pod"]
	if i := strings.LastIndexByte(pod, '-'); i > 0 && strings.HasSuffix(name, pod) {
		tail, start := pod[i:], strings.TrimSuffix(name, pod[i:])
		// The start keeps what comes before the pod and 3 of its cells.
		if room := w - width(tail); room-1 >= width(name)-width(pod)+3 {
			return truncate(start, room) + tail
		}
	}
	return truncate(name, w)
}

// troubleWord is the STATE cell: the trouble, and how a stale cache is.
func troubleWord(h source.Health) string {
	if h.Trouble == source.Stale && h.Stale != "" {
		return h.Stale
	}
	return h.Trouble.String()
}

// worstForm is how much of the worst trouble a cell says, from the most.
type worstForm int

const (
	worstFull   worstForm = iota // informer · listener · how long in pkg.(*T).fn (file:line)
	worstMedium                  // informer · listener · how long in fn (file:line)
	worstNoFile                  // informer · listener · how long in fn
	worstShort                   // informer · how long in fn (file:line)
	worstTight                   // how long in fn (file:line): the other views name the informer
	worstBare                    // how long in fn: the Listeners view has the file and line
)

// fitWorst is the WORST cell in ww cells: the fullest form that fits.
// Wide (keepNames, from 120 columns) the informer and the listener always
// stay and what does not fit is cut at the end; narrower, the listener
// and then the informer give way to the frame, and what still does not
// fit loses its middle, so both the informer and the frame show.
func fitWorst(h source.Health, now time.Time, ww int, keepNames bool) string {
	last := worstBare
	if keepNames {
		last = worstNoFile
	}
	worst := worstCell(h, now, worstFull)
	for form := worstFull + 1; width(worst) > ww && form <= last; form++ {
		if !keepNames && form == worstNoFile {
			continue // narrow, the file and line say more than the listener
		}
		worst = worstCell(h, now, form)
	}
	if keepNames {
		return truncate(worst, ww)
	}
	return middleEllipsis(worst, ww)
}

// worstCell says the trouble that ranked the process in the given form;
// the listener goes first when room runs out, as a stall's frame says
// more, then the frame's package and receiver.
func worstCell(h source.Health, now time.Time, form worstForm) string {
	switch h.Trouble {
	case source.Healthy:
		return "-"
	case source.Down:
		return "not scraped (up 0)"
	}
	var parts []string
	if form < worstTight || h.Frame == nil {
		parts = append(parts, ownInformerName(h.Informer))
	}
	if h.Listener != "" && (form < worstShort || h.Frame == nil) {
		parts = append(parts, h.Listener)
	}
	// How long first: a stall's frame says where, not for how long.
	if !h.Since.IsZero() {
		parts = append(parts, humanize.Duration(now.Sub(h.Since)))
	}
	s := strings.Join(parts, " · ")
	if h.Frame != nil {
		f := *h.Frame
		if form > worstFull {
			f.Function = f.Function[strings.LastIndexByte(f.Function, '.')+1:]
		}
		if form == worstNoFile || form == worstBare {
			s += " in " + f.Function
		} else {
			s += " in " + f.String()
		}
	}
	return s
}

// ownInformerName drops the process a fleet puts before an informer's
// name: the row already names it.
func ownInformerName(name string) string {
	if i := strings.LastIndex(name, " · "); i >= 0 {
		return name[i+len(" · "):]
	}
	return name
}

// troubleStyled styles a row as stateOf's levels style an informer: a
// stall, a stale cache or a down process bad, a backlog or a sync that
// has not come a warning.
func troubleStyled(st styles, t source.Trouble, s string) string {
	switch t {
	case source.Stalled, source.Stale, source.Down:
		return st.bad.Render(s)
	case source.Backlog, source.NotSynced:
		return st.warn.Render(s)
	}
	return s
}

// safeProcesses is ps with every text from the targets' labels safe.
func safeProcesses(ps []source.Process) []source.Process {
	if ps == nil {
		return nil
	}
	out := make([]source.Process, len(ps))
	for i, p := range ps {
		p.Job, p.Instance, p.Agent, p.Cluster = safe(p.Job), safe(p.Instance), safe(p.Agent), safe(p.Cluster)
		p.Labels = safeLabels(p.Labels)
		p.Informers = safeAll(p.Informers)
		out[i] = p
	}
	return out
}

func safeLabels(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[safe(k)] = safe(v)
	}
	return out
}
