package tui

import (
	"time"

	"github.com/informtop/informtop/agent/source"
)

const (
	// eventFetchMax bounds the events pulled per tick: a busy engine cannot
	// make one tick expensive, it only makes the UI miss (and count) events.
	eventFetchMax = 4096
	// eventLogSize is how many per-item events (watch events, pops,
	// callbacks) the Events view can scroll back through.
	eventLogSize = 5000
	// lifecycleLogSize is how many lifecycle events it keeps besides: at a
	// relist a minute, hours of them.
	lifecycleLogSize = 2000
)

// dataMsg carries one tick's pull from the source. It is built off the UI
// goroutine (see fetchData) so a slow source never delays a keystroke.
type dataMsg struct {
	// from is the dashboard that asked; a frame read for the one a ":ctx"
	// replaced is dropped.
	from       *common
	snaps      []source.Informer
	notes      []string
	events     []source.Event
	lifecycle  []bool // per event: kept in the lifecycle log (source.Event.Lifecycle)
	next       uint64
	missed     uint64
	eventStats source.RingStats
	status     source.Status
	reasons    source.Reasons
	workqueues []source.Workqueue
	server     map[string]source.ServerStats
	processes  []source.Process // a fleet's; nil for other sources
	paused     bool
	pausedBy   source.Pauser
	at         time.Time
}

// fetchData reads everything one tick needs from src, in one Pull.
func fetchData(src source.Source, cursor uint64, now time.Time) dataMsg {
	f := src.Pull(cursor, eventFetchMax)
	msg := dataMsg{snaps: f.Snapshots, notes: f.Notes, events: f.Events, next: f.Next, missed: f.Missed,
		eventStats: f.EventStats, status: f.Status, reasons: f.Reasons, workqueues: f.Workqueues,
		server: f.Server, processes: f.Processes, paused: f.Paused, pausedBy: f.PausedBy, at: now}
	msg.lifecycle = make([]bool, len(msg.events))
	for i := range msg.events {
		msg.lifecycle[i] = msg.events[i].Lifecycle()
	}
	safeFrame(&msg)
	for i := range msg.snaps {
		if msg.snaps[i].Taken.IsZero() {
			msg.snaps[i].Taken = now
		}
	}
	return msg
}

// dataState is what the views read: the latest snapshots, their history and
// the recent events. The root model owns it and changes it only in Update;
// views read it during Update and View, which Bubble Tea never runs
// concurrently, so it has no lock.
type dataState struct {
	snaps   []source.Informer
	notes   []string // the source's notes as of the last tick
	noteLog noteLog  // every note shown so far, for the narration history
	current string   // name of the informer the views show
	// pickedUnder is the headline note that stood when the user last
	// chose current; "" before.
	pickedUnder string
	hist        map[string]*history
	events      eventLog
	cursor      uint64 // next sequence number to ask the source for
	missed      uint64 // events the UI never saw because the source's ring overwrote them
	// missedLife is how many of missed may have been lifecycle events: the
	// source's ring keeps those apart for a reader that lags (instr.Ring.
	// Since), so a stretch it overwrote held lifecycle events only where
	// it dropped some (RingStats.DroppedLifecycle) meanwhile.
	missedLife uint64
	// eventStats are the source's event-ring totals as of the last tick.
	eventStats source.RingStats
	status     source.Status  // the source's connection state
	reasons    source.Reasons // why each unsynced informer is not synced
	// workqueues are the controller's workqueues as of the last tick, in
	// the source's order; none for the demo and a cluster. wqHist keeps a
	// few seconds of each, by name, for its add rate and depth trend.
	workqueues []source.Workqueue
	wqHist     map[string]*queueHistory
	// server is what the API server says about each informer's resource;
	// serverBefore the reading before it (an older Taken), for rates.
	server       map[string]source.ServerStats
	serverBefore map[string]source.ServerStats
	paused       bool
	pausedBy     source.Pauser // who paused: the user or the scenario
	updated      time.Time     // when the newest dataMsg arrived
	ticks        uint64        // dataMsgs applied, a cheap clock for transient messages

	// selectedListener is the listener under the cursor of the Listeners
	// view; the global stall key acts on it.
	selectedListener string
	// awaited is an informer just added (":svc") that a frame read before
	// it existed lacks: current stays on it until it shows up.
	awaited string

	// processes are a fleet's controller processes (Frame.Processes).
	processes []source.Process
}

func newDataState() *dataState {
	return &dataState{hist: map[string]*history{}, wqHist: map[string]*queueHistory{}}
}

func (d *dataState) apply(msg dataMsg) {
	watched := make(map[string]string, len(d.snaps))
	for i := range d.snaps {
		watched[d.snaps[i].Name] = d.snaps[i].Namespace
	}
	d.snaps = msg.snaps
	d.notes = msg.notes
	d.updated = msg.at
	d.ticks++
	d.paused, d.pausedBy = msg.paused, msg.pausedBy
	lifeDropped := msg.eventStats.DroppedLifecycle - min(d.eventStats.DroppedLifecycle, msg.eventStats.DroppedLifecycle)
	d.eventStats = msg.eventStats
	d.status = msg.status
	d.reasons = msg.reasons
	d.keepServerReadings(msg.server)
	d.server = msg.server
	d.processes = msg.processes
	d.applyWorkqueues(msg)
	noteAt := msg.at
	for i := range msg.snaps {
		if t := msg.snaps[i].Taken; t.After(noteAt) || noteAt.IsZero() {
			noteAt = t
		}
	}
	d.noteLog.observe(msg.notes, noteAt)
	seen := make(map[string]bool, len(msg.snaps))
	for i := range d.snaps {
		s := &d.snaps[i]
		seen[s.Name] = true
		h := d.hist[s.Name]
		if ns, ok := watched[s.Name]; ok && ns != s.Namespace {
			h = nil // replaced by one watching elsewhere (":ns"): its past is not this one's
		}
		if h == nil {
			h = &history{}
			d.hist[s.Name] = h
		}
		h.observe(s)
	}
	for name := range d.hist {
		if !seen[name] {
			delete(d.hist, name)
		}
	}
	if seen[d.awaited] {
		d.awaited = ""
	}
	if !seen[d.current] && (d.awaited == "" || d.current != d.awaited) && len(d.snaps) > 0 {
		d.current = d.snaps[0].Name
		d.selectedListener = ""
	}
	d.events.add(msg.events, msg.lifecycle)
	d.cursor = msg.next
	d.missed += msg.missed
	d.missedLife += min(msg.missed, lifeDropped)
}

// applyWorkqueues keeps msg's workqueues and samples each into its
// history on the snapshots' clock (the clock the views measure ages on),
// forgetting the queues that are gone.
func (d *dataState) applyWorkqueues(msg dataMsg) {
	d.workqueues = msg.workqueues
	if len(d.workqueues) == 0 {
		clear(d.wqHist)
		return
	}
	var now time.Time
	for i := range msg.snaps {
		if t := msg.snaps[i].Taken; t.After(now) {
			now = t
		}
	}
	if now.IsZero() {
		now = msg.at
	}
	seen := make(map[string]bool, len(d.workqueues))
	for i := range d.workqueues {
		q := &d.workqueues[i]
		seen[q.Name] = true
		h := d.wqHist[q.Name]
		if h == nil {
			h = &queueHistory{}
			d.wqHist[q.Name] = h
		}
		h.observe(now, q)
	}
	for name := range d.wqHist {
		if !seen[name] {
			delete(d.wqHist, name)
		}
	}
}

// logDrops is how many event-log entries the header counts as gone: the
// lifecycle events (lists, watches, relists, errors: what a note sends the
// learner to find) never read from the source or pushed out of the
// dashboard's own log. Per-item events are not: the dashboard's ring
// turns over within a minute at a demo's 20 changes a second, and a
// large initial list emits them faster than a refresh reads (50,000
// never read in initial-sync), which changes nothing on screen but what
// the Events view holds, and that view says so (eventsView.dropped).
func (d *dataState) logDrops() uint64 { return d.missedLife + d.events.life.overwritten }

// snap returns the current informer's snapshot, nil before the first tick.
func (d *dataState) snap() *source.Informer {
	for i := range d.snaps {
		if d.snaps[i].Name == d.current {
			return &d.snaps[i]
		}
	}
	return nil
}

// history returns the current informer's history (possibly empty).
func (d *dataState) history() *history {
	if h := d.hist[d.current]; h != nil {
		return h
	}
	return &history{}
}

// eventLog keeps the newest events in two rings: lifecycle events (lists,
// watches, relists, errors, resyncs, controls, tombstones) and per-item
// events (every watch event, pop, store update and callback). A busy
// informer fills the per-item ring in seconds; kept apart, the lifecycle
// events a learner is sent to find survive a long session. The views read
// both merged in sequence order.
type eventLog struct {
	life, items eventRing
	merged      []*source.Event // both rings in sequence order, rebuilt on add
	version     uint64          // bumped on every add, so views re-filter only on change
}

// eventRing is a fixed-size ring of events, oldest first.
type eventRing struct {
	buf   []source.Event
	start int
	n     int
	// overwritten counts events this ring dropped to make room.
	overwritten uint64
}

// add keeps evs; life says which are lifecycle events (as
// source.Event.Lifecycle, read before the objects were dropped), nil to
// ask each event.
func (l *eventLog) add(evs []source.Event, life []bool) {
	if len(evs) == 0 {
		return
	}
	for i := range evs {
		isLife := evs[i].Lifecycle()
		if i < len(life) {
			isLife = life[i]
		}
		if isLife {
			l.life.push(&evs[i], lifecycleLogSize)
		} else {
			l.items.push(&evs[i], eventLogSize)
		}
	}
	l.merge()
	l.version++
}

func (r *eventRing) push(e *source.Event, size int) {
	if r.buf == nil {
		r.buf = make([]source.Event, size)
	}
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = *e
		r.n++
		return
	}
	r.buf[r.start] = *e
	r.start = (r.start + 1) % len(r.buf)
	r.overwritten++
}

func (r *eventRing) at(i int) *source.Event { return &r.buf[(r.start+i)%len(r.buf)] }

// merge lists both rings in sequence order; each ring already is.
func (l *eventLog) merge() {
	l.merged = l.merged[:0]
	i, j := 0, 0
	for i < l.life.n || j < l.items.n {
		if j >= l.items.n || (i < l.life.n && l.life.at(i).Seq <= l.items.at(j).Seq) {
			l.merged = append(l.merged, l.life.at(i))
			i++
		} else {
			l.merged = append(l.merged, l.items.at(j))
			j++
		}
	}
}

func (l *eventLog) len() int { return len(l.merged) }

// at returns the i-th held event, 0 being the oldest.
func (l *eventLog) at(i int) *source.Event { return l.merged[i] }

// overwritten is how many events the log dropped to make room.
func (l *eventLog) overwritten() uint64 { return l.life.overwritten + l.items.overwritten }

// snapTaken is when the current informer's snapshot was read (the source's
// clock, so ages computed from it do not depend on this machine's); zero
// before the first snapshot.
func (d *dataState) snapTaken() time.Time {
	if s := d.snap(); s != nil {
		return s.Taken
	}
	return time.Time{}
}

// hasWatchPath reports that the source knows the API server's watch path
// for some informer (only a source running the server does).
func (d *dataState) hasWatchPath() bool {
	for _, st := range d.server {
		if st.Path != nil {
			return true
		}
	}
	return false
}

// keepServerReadings remembers, per informer, the last reading older than
// the new one: a source reads the server less often than the dashboard
// pulls, so most frames repeat a reading.
func (d *dataState) keepServerReadings(next map[string]source.ServerStats) {
	for name, cur := range d.server {
		if n, ok := next[name]; ok && n.Taken.After(cur.Taken) {
			if d.serverBefore == nil {
				d.serverBefore = map[string]source.ServerStats{}
			}
			d.serverBefore[name] = cur
		}
	}
}
