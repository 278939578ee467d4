package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// headerLines is the header's height while its sentences fit: a note
// that comes or goes after the tabs never moves the body.
const headerLines = 3

// headerBlock draws the status block on an h-row terminal: source,
// resource, connection, sync state of every informer and handler, RV,
// event rate, drops, the view tabs with the most important note, and
// under them the sentences too long for their place (header_reasons.go).
func headerBlock(c *common, active viewID, views []view, h int) string {
	return joinLines(strings.Join([]string{
		headerStatus(c),
		headerSync(c),
		headerTabs(c, active, views, c.width) + headerNote(c, views, active),
	}, "\n"), headerBelow(c, views, c.width, h))
}

// headerStatus is the current informer's state, most important first so
// that a narrow terminal cuts the least useful part.
func headerStatus(c *common) string {
	st := c.styles
	sep := st.dim.Render(" · ")
	parts := []string{st.title.Render("informtop")}
	s := c.data.snap()
	// The source's own trouble (an attach endpoint gone, another version)
	// comes before anything read from data that may be stale; a sentence
	// too long for this line is under the tabs, its state in a word here.
	if why := sourceTrouble(c); why.text != "" && statusInline(why.text, c.width) {
		parts = append(parts, why.String())
	} else if why.text != "" {
		parts = append(parts, statusWord(c))
	}
	if s == nil {
		return joinNonEmpty(sep, append(parts, sourceName(c), st.dim.Render("connecting…"))...)
	}
	kind := queueKindText(c, s)
	synced := stateOf(s, c.data.reasons[s.Name]).render(st)
	p := c.data.history().latest()
	watchRate := p.eventRate[evAdded] + p.eventRate[evModified] + p.eventRate[evDeleted]
	at := len(parts)
	parts = append(parts, joinNonEmpty(" ", st.bold.Render(scopeText(c, s)), kind))
	if c.data.paused || s.Paused {
		parts = append(parts, st.warn.Render("⏸ "+pausedWho(c.data.pausedBy)))
	}
	if silent := silence(s); silent != "" {
		parts = append(parts, st.bad.Render(silent))
	}
	state := len(parts) + 1
	parts = append(parts, connShort(c, s), synced)
	if !c.caps.fleet { // the agent's series carry neither
		parts = append(parts, "RV "+orDash(s.LastSyncResourceVersion), humanize.RateNumber(watchRate)+" ev/s")
	}
	// A figure at the end that does not fit is left out whole, not cut.
	return fitScoped(c, s, sep, parts, at, state, kind)
}

// shortTitler is a source whose title has a shorter form for a narrow
// header (attach through the API server: namespace/pod).
type shortTitler interface{ ShortTitle() string }

// sourceName is "demo · steady", "kube: prod", "attach: host:port".
func sourceName(c *common) string {
	kind, title := safe(c.src.Kind()), safe(c.src.Title())
	switch {
	case title == "" || title == kind:
		return kind
	case strings.HasPrefix(title, kind):
		return title
	}
	return kind + ": " + title
}

// headerSync names the source, every informer's and the current
// informer's handlers' sync state, and the event drops. When the line is
// too wide and the informers' names are what makes it so, they shrink to
// a count (naming the unsynced ones), so drops and handlers stay in view.
func headerSync(c *common) string {
	st := c.styles
	var names strings.Builder
	synced := 0
	var waiting []string
	for i, s := range c.data.snaps {
		if i > 0 {
			names.WriteByte(' ')
		}
		// Synced and trusted: a stale cache is not counted as synced.
		state := stateOf(&c.data.snaps[i], c.data.reasons[s.Name])
		mark := state.styled(st, state.mark)
		if state.level == stateOK {
			synced++
		} else {
			waiting = append(waiting, s.Name)
		}
		name := s.Name
		if s.Name == c.data.current {
			name = st.bold.Render(name)
		}
		names.WriteString(mark + name)
	}
	source := st.bold.Render(sourceName(c)) + st.dim.Render(" │ informers ")
	kind := st.bold.Render(safe(c.src.Kind())) + st.dim.Render(" │ informers ")
	// A source with a long title may name itself shorter (attach through
	// the API server: the pod), before only its kind is left.
	short := kind
	if sh, ok := c.src.(shortTitler); ok && sh.ShortTitle() != "" {
		short = st.bold.Render(safe(c.src.Kind())+": "+safe(sh.ShortTitle())) + st.dim.Render(" │ informers ")
	}
	named, bare, overflow := headerHandlers(c, true), headerHandlers(c, false), headerOverflow(c)
	shortOverflow := strings.Replace(overflow, "dashboard log overflow", "log overflow", 1)
	// An overflow of 0 (nothing lost, nothing to warn of) gives way to the
	// source's name: demo, which cluster, which agent.
	lost := overflow
	if c.data.logDrops() == 0 {
		lost = ""
	}
	counted := fmt.Sprintf("%d/%d synced", synced, len(c.data.snaps))
	if synced < len(c.data.snaps) {
		counted = st.warn.Render(counted)
	}
	// The first that fits: every informer named, then a count with the
	// unsynced named, then a bare count, then without an overflow of 0,
	// then the overflow without the word "dashboard", then the source's
	// kind alone ("demo": nothing else on screen says the cluster is
	// simulated), then without it; the handlers' sync state and a nonzero
	// overflow stay in view.
	informers := st.dim.Render("informers ")
	variants := func(stall string) (withKind, kindless []string) {
		named, bare := named+stall, bare+stall
		rest := named + overflow
		return []string{
				source + names.String() + rest,
				source + syncSummary(st, synced, len(c.data.snaps), waiting) + rest,
				source + counted + rest,
				source + counted + named + lost,
				source + counted + bare + lost,
				source + counted + bare + shortOverflow,
				short + counted + bare + lost,
				short + counted + bare + shortOverflow,
				kind + counted + bare + shortOverflow,
			}, []string{
				informers + syncSummary(st, synced, len(c.data.snaps), waiting) + rest,
				informers + counted + rest,
				informers + counted + named + shortOverflow,
				informers + counted + bare + shortOverflow,
			}
	}
	stalls := stalledHandlers(c)
	if len(stalls) == 0 {
		withKind, kindless := variants("")
		return firstFitting(c.width, append(withKind, kindless...)...)
	}
	// A stalled handler, on any informer, follows the handlers' sync
	// state: named whole, else shorter (stalledPiece), else counted. Each
	// way, the handlers' state and an overflow of 0 give way to it before
	// it is said shorter; the source's kind goes last.
	lostShort := ""
	if lost != "" {
		lostShort = shortOverflow
	}
	var vs, kindless []string
	for _, stall := range stallPieces(st, stalls, c.caps.fleet) {
		with, without := variants(stall)
		vs = append(vs, with...)
		vs = append(vs, short+counted+bare+stall+lostShort, kind+counted+bare+stall+lostShort, source+counted+stall+lostShort,
			short+counted+stall+lostShort, kind+counted+stall+lostShort)
		kindless = append(kindless, without...)
		kindless = append(kindless, informers+counted+stall+lostShort)
	}
	return firstFitting(c.width, append(vs, kindless...)...)
}

// stalledHandler is a handler the header names as stalled.
type stalledHandler struct {
	informer, name string
	inCallback     time.Duration
}

// stalledHandlers are the stalled handlers of every informer, as the
// Listeners view assesses them (too long in one callback, or a backlog
// rising), the longest in a callback first, else in the source's order:
// the header names them whichever informer is shown.
func stalledHandlers(c *common) []stalledHandler {
	var out []stalledHandler
	now := c.now()
	for i := range c.data.snaps {
		s := &c.data.snaps[i]
		h := c.data.hist[s.Name]
		if h == nil {
			h = &history{}
		}
		for j := range s.Listeners {
			if a := assessListener(&s.Listeners[j], now, h, c.stallAfter); a.stalled {
				out = append(out, stalledHandler{s.Name, s.Listeners[j].Name, a.inCallback})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b stalledHandler) int { return cmp.Compare(b.inCallback, a.inCallback) })
	return out
}

// stallDetails is how many ways stalledPiece can say the stalls.
const stallDetails = 5

// stalledPiece is " │ ⚠ stalled: foos › main.(*Controller) (+1 more)":
// the first stalled handler and its informer named whole (detail 0), the
// informer's name shortened (1), both (2), the informer alone (3), or a
// count (4). The handler's name is what the user looks for.
func stalledPiece(st styles, stalls []stalledHandler, detail int) string {
	const short = 16 // the middle of a long name gives way first
	first := stalls[0]
	more := ""
	if len(stalls) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(stalls)-1)
		if detail > 1 {
			more = fmt.Sprintf(" +%d", len(stalls)-1)
		}
	}
	var txt string
	switch detail {
	case 0:
		txt = "⚠ stalled: " + first.informer + " › " + first.name + more
	case 1:
		txt = "⚠ stalled: " + middleEllipsis(first.informer, short) + " › " + first.name + more
	case 2:
		txt = "⚠ stalled: " + middleEllipsis(first.informer, short) + " › " + middleEllipsis(first.name, short) + more
	case 3:
		txt = "⚠ stalled on " + middleEllipsis(first.informer, short) + more
	default:
		txt = fmt.Sprintf("⚠ %d stalled", len(stalls))
	}
	return st.dim.Render(" │ ") + st.warn.Render(txt)
}

// pausedWho is the pause as the header says it: who paused.
func pausedWho(by source.Pauser) string {
	if by == "" {
		return "PAUSED"
	}
	return string(by) + " paused"
}

// headerHandlers is " │ handlers 3/4 synced": how many of the current
// informer's handlers have synced; named names those still waiting.
func headerHandlers(c *common, named bool) string {
	s := c.data.snap()
	if s == nil {
		return ""
	}
	synced := 0
	var waiting []string
	for _, l := range s.Listeners {
		if l.Synced {
			synced++
		} else {
			waiting = append(waiting, l.Name)
		}
	}
	if !named {
		waiting = nil
	}
	label := " │ handlers "
	if named && len(c.data.snaps) > 1 {
		label = " │ " + possessive(s.Name) + " handlers " // the one shown's, not every informer's
	}
	return c.styles.dim.Render(label) + syncSummary(c.styles, synced, len(s.Listeners), waiting)
}

// headerOverflow is " │ dashboard log overflow N": event-log entries this
// dashboard lost, never received or lifecycle events pushed out of its own
// log (dataState.logDrops; the per-item events it turns over are the
// Events view's to say). The source ring's Dropped counts overwritten
// events even when every reader kept up, so it is not shown here. It is
// the dashboard's log overflowing, not the pipeline losing events (a
// burst's narration says nothing was dropped on the way): so worded, and
// a warning rather than an error.
func headerOverflow(c *common) string {
	st := c.styles
	n := "0"
	if dropped := c.data.logDrops(); dropped > 0 {
		n = st.warn.Render(humanize.CountShort(dropped))
	}
	return st.dim.Render(" │ dashboard log overflow ") + n
}

// syncSummary is "3/4 synced, waiting: late", warning-styled while some
// are waiting; at most a few are named, the Listeners view and the
// switcher have them all.
func syncSummary(st styles, synced, total int, waiting []string) string {
	txt := fmt.Sprintf("%d/%d synced", synced, total)
	if len(waiting) == 0 {
		return txt
	}
	const named = 3  // more would not fit
	const nameW = 24 // nor would long names
	more := ""
	if len(waiting) > named {
		more = fmt.Sprintf(" +%d", len(waiting)-named)
		waiting = waiting[:named]
	}
	short := make([]string, len(waiting))
	for i, name := range waiting {
		short[i] = middleEllipsis(name, nameW)
	}
	return st.warn.Render(txt + ", waiting: " + strings.Join(short, " ") + more)
}

// shortViewNames name the views on a narrow terminal, so every tab keeps
// a name at 80 columns.
var shortViewNames = [numViews]string{"Pipe", "Queue", "Lstn", "Store", "Events"}

// headerTabs shows every view's number and name; short names below 120
// columns.
func headerTabs(c *common, active viewID, views []view, w int) string {
	st := c.styles
	wide := w >= 120
	parts := make([]string, len(views))
	for i, v := range views {
		name := v.name()
		if !wide && i < len(shortViewNames) {
			name = shortViewNames[i]
		}
		label := fmt.Sprintf("%d %s", i+1, name)
		if viewID(i) == viewFleet {
			label = c.keys.Fleet.Help().Key + " " + name
		}
		if viewID(i) == active && st.mono {
			parts[i] = "[" + label + "]"
		} else if viewID(i) == active {
			parts[i] = st.selected.Render(" " + label + " ")
		} else {
			parts[i] = st.dim.Render(" " + label + " ")
		}
	}
	if len(parts) > int(viewFleet) {
		// A fleet's own view comes first: it is the one it opens on.
		parts = append(parts[viewFleet:], parts[:viewFleet]...)
	}
	return strings.Join(parts, "")
}

// crumbed is a view that can say where inside it the user is: the open
// object, listener or event, and the filter in force.
type crumbed interface {
	crumbs() []string
}

// headerNote follows the tabs: the informer's trouble when it fits there,
// else the breadcrumb (informer ▸ view ▸ what is open). The source's
// notes have their own panel (notes.go), so nothing here hides them.
func headerNote(c *common, views []view, active viewID) string {
	if note := informerNote(c); note.text != "" && noteInline(c, views, note.text, c.width) {
		return "  " + note.String()
	}
	if c.data.current == "" {
		return ""
	}
	v := views[active]
	crumbs := []string{c.data.current, v.name()}
	if cv, ok := v.(crumbed); ok {
		crumbs = append(crumbs, cv.crumbs()...)
	}
	return "  " + c.styles.dim.Render(strings.Join(crumbs, " › "))
}

// connShort is the connection state in a few words for the status line.
func connShort(c *common, s *source.Informer) string {
	st := c.styles
	r := s.Reflector
	now := c.now()
	switch {
	case s.Stopped:
		return st.dim.Render("stopped")
	case !s.Started:
		return st.dim.Render("not started")
	case isPprof(s):
		return st.dim.Render("from goroutine dumps") // no reflector in view
	case r.ListInProgress:
		return st.warn.Render(listingWord(r) + "…")
	case r.WatchOpen && r.WatchSince.IsZero():
		return st.ok.Render("watch up") // since when the source does not know (a fleet's series)
	case r.WatchOpen:
		return st.ok.Render("watch up " + humanize.Duration(since(now, r.WatchSince)))
	case r.Watches > 0 && source.LinkOf(*s, false) == source.LinkRelistPending:
		// The server answered (a 410): its watch is not down but ended,
		// and client-go lists again rather than watching.
		return st.warn.Render("watch ended")
	case source.LinkOf(*s, strings.HasPrefix(c.data.reasons[s.Name], say.DeniedPrefix)) == source.LinkForbidden:
		// The server reached and refused it: no watch, but nothing is
		// down (the state beside it says forbidden).
		return st.bad.Render("no watch")
	case r.LastError != "":
		return st.bad.Render("watch down")
	default:
		return st.warn.Render("watch down")
	}
}

// connState is connShort with the error spelled out, for the pipeline.
func connState(c *common, s *source.Informer) string {
	if p := connProblem(c, s); p != "" {
		return c.styles.bad.Render(p)
	}
	return connShort(c, s)
}

// connProblem explains a watch that is down, e.g. "watch down 3.2s: 403:
// cannot watch pods in kube-system"; empty while the connection is fine.
func connProblem(c *common, s *source.Informer) string {
	r := s.Reflector
	if !s.Started || s.Stopped || r.WatchOpen || r.ListInProgress || r.LastError == "" {
		return ""
	}
	return linkProblem(c, s)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
