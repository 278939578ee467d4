package pprof

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// tracker turns consecutive dumps into the model: it remembers each
// listener's handler name once a dump caught it in a call (an idle
// goroutine does not name it), and each call in progress from the first
// dump that found it, so that a later dump finding the same call says it
// has lasted at least that long.
//
// Locking: none; the poller is its only user.
type tracker struct {
	names map[string]string // listener ID → handler name, once known
	calls map[string]*call  // listener ID → the call in progress
	seq   uint64            // the last event's sequence number
}

// call is one callback in progress, as the dumps saw it.
type call struct {
	callback string
	entry    string // the handler's function
	user     Frame  // the code it is in
	// since is the lower bound of its start: the first dump that saw it,
	// or earlier by the runtime's minutes of waiting.
	since    time.Time
	lastSeen time.Time
	stalled  bool // a Stalled event was emitted
	informer string
	listener string
}

func newTracker() *tracker {
	return &tracker{names: map[string]string{}, calls: map[string]*call{}}
}

// same reports whether l, seen now, continues c: the same callback in the
// same handler function at the same user frame. A handler that returned
// and went into the same place again between two dumps reads as one call;
// docs/attach-pprof.md says so.
func (c *call) same(l listenerSeen) bool {
	return c.callback == l.Callback && c.entry == l.Entry.Function &&
		c.user.Function == l.User.Function && c.user.Line == l.User.Line
}

// update reads one dump taken at now and returns the informers it shows
// and the events it caused (Stalled, Recovered), numbered on.
func (t *tracker) update(gs []Goroutine, now time.Time) ([]source.Informer, []source.Event) {
	seen := findListeners(gs)
	procs := processors(gs)
	var events []source.Event
	present := map[string]bool{}

	// Group by processor: one per informer.
	byProc := map[uint64][]listenerSeen{}
	for _, l := range seen {
		present[l.ID] = true
		if l.Handler != "" {
			t.names[l.ID] = l.Handler
		}
		byProc[l.Processor] = append(byProc[l.Processor], l)
	}
	procIDs := make([]uint64, 0, len(byProc))
	for p := range byProc {
		procIDs = append(procIDs, p)
	}
	slices.Sort(procIDs)

	// Informers with the same handler names are told apart by goroutine.
	names := make([]string, len(procIDs))
	used := map[string]int{}
	for i, p := range procIDs {
		ls := byProc[p]
		slices.SortFunc(ls, func(a, b listenerSeen) int { return cmp.Compare(a.Goroutine, b.Goroutine) })
		names[i] = t.informerName(ls, procs[p], p)
		used[names[i]]++
	}
	infs := make([]source.Informer, 0, len(procIDs))
	for i, p := range procIDs {
		inf := source.Informer{
			Name:           names[i],
			Implementation: source.ImplementationPprof,
			Taken:          now,
			Started:        true,
			// A goroutine dump does not show HasSynced; listeners that run
			// are taken as synced (docs/attach-pprof.md).
			Synced: true,
		}
		if used[inf.Name] > 1 {
			inf.Name += " (goroutine " + strconv.FormatUint(cmp.Or(procs[p], p), 10) + ")"
		}
		for _, l := range byProc[p] {
			inf.Listeners = append(inf.Listeners, t.listener(&inf, l, now, &events))
		}
		infs = append(infs, inf)
	}
	// Calls whose listener went idle or away have returned.
	for id, c := range t.calls {
		if present[id] && c.lastSeen.Equal(now) {
			continue
		}
		if c.stalled {
			events = append(events, source.Event{Type: source.EventRecovered, Time: now, Informer: c.informer, Listener: c.listener,
				Detail: c.callback, Duration: c.lastSeen.Sub(c.since), Frame: c.user.StackFrame().String()})
		}
		delete(t.calls, id)
	}
	for id := range t.names {
		if !present[id] {
			delete(t.names, id)
		}
	}
	for i := range events {
		t.seq++
		events[i].Seq = t.seq
	}
	return infs, events
}

// listener is one listener's model at now, updating its call.
func (t *tracker) listener(inf *source.Informer, l listenerSeen, now time.Time, events *[]source.Event) source.Listener {
	out := source.Listener{Name: t.listenerName(l), Synced: true}
	if l.Callback == "" {
		return out
	}
	c := t.calls[l.ID]
	if c != nil && !c.same(l) {
		if c.stalled {
			*events = append(*events, source.Event{Type: source.EventRecovered, Time: now, Informer: c.informer, Listener: c.listener,
				Detail: c.callback, Duration: c.lastSeen.Sub(c.since), Frame: c.user.StackFrame().String()})
		}
		c = nil
	}
	if c == nil {
		c = &call{callback: l.Callback, entry: l.Entry.Function, user: l.User, since: now}
		t.calls[l.ID] = c
	}
	if m := time.Duration(l.Minutes) * time.Minute; m > 0 && now.Add(-m).Before(c.since) {
		c.since = now.Add(-m)
	}
	c.lastSeen, c.informer, c.listener = now, inf.Name, out.Name
	frame := l.User.StackFrame()
	out.InCallback, out.InCallbackSince, out.Frame = l.Callback, c.since, &frame
	out.OldestPendingSince = c.since
	if !c.stalled && now.Sub(c.since) > source.StallAfter {
		c.stalled = true
		*events = append(*events, source.Event{Type: source.EventStalled, Time: now, Informer: inf.Name, Listener: out.Name,
			Detail: l.Callback, Duration: now.Sub(c.since), Frame: frame.String()})
	}
	return out
}

// listenerName is client-go's name for the handler once a dump caught it
// in a call, else the goroutine running it, which the dump also shows.
func (t *tracker) listenerName(l listenerSeen) string {
	if n := t.names[l.ID]; n != "" {
		return n
	}
	return fmt.Sprintf("listener in goroutine %d", l.Goroutine)
}

// informerName names an informer by the handlers it delivers to, as far
// as they are known, else by the goroutine running it.
func (t *tracker) informerName(ls []listenerSeen, informer, processor uint64) string {
	var names []string
	for _, l := range ls {
		if n := t.names[l.ID]; n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		return strings.Join(names, ", ")
	}
	return "informer in goroutine " + strconv.FormatUint(cmp.Or(informer, processor), 10)
}
