package source

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Trouble is what is wrong with an informer or a process. The order is
// the fleet's ranking: a larger Trouble is worse, so a list sorted by it
// (RankProcesses) puts the process to look at first on top.
type Trouble int

const (
	// Healthy: nothing below.
	Healthy Trouble = iota
	// Stale: the cache may be out of date: the watch is down, the
	// informer is listing again, or it has heard nothing for longer than
	// SilentAfter (Stale says which).
	Stale
	// NotSynced: the informer has not synced.
	NotSynced
	// Backlog: a handler is more than the stall threshold behind with
	// notifications waiting.
	Backlog
	// Stalled: a handler has been in one callback longer than the stall
	// threshold; its notifications wait behind it.
	Stalled
	// Down: Prometheus cannot scrape the process (up == 0): it may have
	// crashed or hung, and nothing newer than its last scrape is known,
	// so it ranks first.
	Down
)

var troubleNames = [...]string{Healthy: "ok", Down: "down", Stale: "stale", NotSynced: "not synced", Backlog: "backlog", Stalled: "stalled"}

// String is the state's word, as the fleet's table and JSON give it.
func (t Trouble) String() string {
	if t < 0 || int(t) >= len(troubleNames) {
		return fmt.Sprintf("Trouble(%d)", int(t))
	}
	return troubleNames[t]
}

// MarshalText writes the state's word.
func (t Trouble) MarshalText() ([]byte, error) {
	if t < 0 || int(t) >= len(troubleNames) {
		return nil, fmt.Errorf("no trouble %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads a state's word.
func (t *Trouble) UnmarshalText(text []byte) error {
	if i := slices.Index(troubleNames[:], string(text)); i >= 0 {
		*t = Trouble(i)
		return nil
	}
	return fmt.Errorf("unknown state %q: use one of %s", text, strings.Join(troubleNames[:], ", "))
}

// Health is the worst trouble of an informer or a process and where it
// is: the informer and listener, and what measures it. Fields that do
// not apply stay zero.
type Health struct {
	Trouble  Trouble
	Informer string
	Listener string
	// Stale says how a Stale informer is: StaleRelisting, StaleWatchDown
	// or StaleSilent.
	Stale string
	// Callback, Key and Since are a stalled handler's call (Since its
	// start); for a backlog Since is when the oldest waiting notification
	// was queued.
	Callback string
	Key      string
	Since    time.Time
	// Frame is where a stalled call was found, when known.
	Frame   *StackFrame
	Pending int
}

// How an informer's cache is stale (StaleOf).
const (
	StaleRelisting = "relisting"
	StaleWatchDown = "watch down"
	StaleSilent    = "silent"
)

// StaleOf says why an informer that has synced holds a cache that may be
// out of date, "" when it does not: listing again, its watch down, or
// nothing heard for longer than SilentAfter. The dashboard's informer
// state and the fleet's ranking both read it.
func StaleOf(s Informer) string {
	switch {
	case s.Reflector.ListInProgress:
		return StaleRelisting
	case s.Started && !s.Reflector.WatchOpen:
		return StaleWatchDown
	case FreshnessOf(s, s.Taken).Silent:
		return StaleSilent
	}
	return ""
}

// InformerHealth is the worst trouble of s at now: its longest stalled
// listener (in one callback longer than stallAfter), else its largest
// backlog more than stallAfter behind, else not synced, else stale.
func InformerHealth(s Informer, now time.Time, stallAfter time.Duration) Health {
	h := Health{Informer: s.Name}
	if s.Stopped {
		return h
	}
	for _, l := range s.Listeners {
		var c Health
		if since, ok := l.StalledSince(now, stallAfter); ok {
			c = Health{Trouble: Stalled, Informer: s.Name, Listener: l.Name, Callback: l.InCallback, Key: l.InCallbackKey, Since: since, Frame: l.Frame, Pending: l.Pending}
		} else if l.Pending > 0 && l.OldestPendingAge(now) > stallAfter {
			c = Health{Trouble: Backlog, Informer: s.Name, Listener: l.Name, Since: l.OldestPendingSince, Pending: l.Pending}
		}
		if c.Trouble != Healthy && CompareHealth(c, h) < 0 {
			h = c
		}
	}
	if h.Trouble != Healthy {
		return h
	}
	if !s.Synced {
		return Health{Trouble: NotSynced, Informer: s.Name}
	}
	if why := StaleOf(s); why != "" {
		return Health{Trouble: Stale, Informer: s.Name, Stale: why}
	}
	return h
}

// CompareHealth orders a before b when a is worse: by Trouble, then the
// longest stall, the largest backlog, the oldest wait; then by informer
// and listener name so equal troubles keep one order.
func CompareHealth(a, b Health) int {
	if c := cmp.Compare(b.Trouble, a.Trouble); c != 0 {
		return c
	}
	switch a.Trouble {
	case Stalled:
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
	case Backlog:
		if c := cmp.Compare(b.Pending, a.Pending); c != 0 {
			return c
		}
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
	}
	return cmp.Or(strings.Compare(a.Informer, b.Informer), strings.Compare(a.Listener, b.Listener))
}

// ProcessHealth is p's worst informer's health (Down when its target is
// down). byName finds the informers p names.
func ProcessHealth(p Process, byName map[string]*Informer, now time.Time, stallAfter time.Duration) Health {
	if !p.Up {
		return Health{Trouble: Down}
	}
	var h Health
	first := true
	for _, name := range p.Informers {
		inf := byName[name]
		if inf == nil {
			continue
		}
		c := InformerHealth(*inf, now, stallAfter)
		if first || CompareHealth(c, h) < 0 {
			h, first = c, false
		}
	}
	if h.Trouble == Healthy {
		return Health{}
	}
	return h
}

// RankProcesses sorts ps worst first, as the fleet's table, JSON and
// dashboard list them, and returns each one's health in the new order.
// snaps are the frame's informers, which ps name.
func RankProcesses(ps []Process, snaps []Informer, now time.Time, stallAfter time.Duration) []Health {
	byName := make(map[string]*Informer, len(snaps))
	for i := range snaps {
		byName[snaps[i].Name] = &snaps[i]
	}
	type ranked struct {
		p Process
		h Health
	}
	rs := make([]ranked, len(ps))
	for i, p := range ps {
		rs[i] = ranked{p, ProcessHealth(p, byName, now, stallAfter)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.h.Trouble, a.h.Trouble), CompareHealth(a.h, b.h), compareProcessNames(a.p, b.p))
	})
	hs := make([]Health, len(rs))
	for i, r := range rs {
		ps[i], hs[i] = r.p, r.h
	}
	return hs
}
