package cluster

import (
	"sync/atomic"
	"time"
)

// watchPath is one resource's way from etcd to its watchers, staged like
// kube-apiserver v1.37's: etcd holds committed events until the etcd3
// watcher takes them into its incoming channel, decodes them into its
// result channel, the cacher appends each to the watch cache's window and
// queues it on its own incoming channel, and the cacher's dispatch hands it
// to every watcher's own buffer.
//
// The stages run as four goroutines (a run) only while the resource has
// watchers or events on the way; otherwise a write goes straight into the
// watch cache, as there is nobody to dispatch to. Fields without a note are
// guarded by Cluster.mu; the counters are atomics read by stats.
type watchPath struct {
	run      *pathRun // nil when no goroutines run
	pending  []pathEvent
	inflight int // committed events not yet appended to the watch cache

	cache  history // the watch cache's window
	traces traceRing

	decoded, received, dispatched, bookmarks atomic.Uint64
	sent, terminated                         atomic.Uint64
	// lists and watchLists count the resource's LISTs (first pages) and
	// streamed lists, for the server figures a real /metrics would give.
	lists, watchLists atomic.Uint64
	// errorStreams counts the open streams that carry only an ERROR
	// event: like v1.37's cacher, the server answers a watch it cannot
	// serve without a watcher, so they are not among the watchers.
	errorStreams                 atomic.Int64
	dispatchNanos, dispatchCount atomic.Uint64 // commit to every watcher's buffer
	// cacherHigh is the cacher's incoming channel's high-water mark, the
	// one v1.37 keeps on this path (the etcd3 watcher keeps none).
	cacherHigh atomic.Int64
	// dispatchedRV is the newest event handed to the watchers: a bookmark
	// must not pass one still queued before the dispatch.
	dispatchedRV uint64
	watcherIDs   int
	clientDelay  atomic.Int64 // a slow client's delay per event, in ns
}

// pathRun is one start of the path's goroutines, with its own channels so a
// run that is stopping never takes events meant for the next one.
type pathRun struct {
	wake     chan struct{}  // cap 1: pending has events
	incoming chan pathEvent // the etcd3 watcher's incomingEventChan
	outgoing chan pathEvent // its resultChan
	cacherIn chan pathEvent // the cacher's incoming channel
	stop     chan struct{}
}

// cacherIncomingSize is the cacher's incoming channel's length in v1.37.
const cacherIncomingSize = 100

// pathEvent is an event on its way, with what its stages saw of it.
type pathEvent struct {
	event
	trace     *trace
	committed time.Time
	appended  bool // in the watch cache's window (not compacted on the way)
}

func newWatchPath(cacheSize int) watchPath {
	return watchPath{cache: newHistory(cacheSize), traces: newTraceRing(traceKeep)}
}

// enqueueLocked hands a committed event to the watch path. c.mu is held.
func (c *Cluster) enqueueLocked(st *store, e event) {
	p := &st.path
	t := p.traces.add(e)
	if p.run == nil {
		// Nobody watches: the watch cache keeps it for later watchers.
		// kube-apiserver's cacher would dispatch it to no one, and count
		// it as dispatched all the same.
		if p.appendLocked(e, t) {
			p.dispatched.Add(1)
		}
		p.dispatchedRV = e.rv
		return
	}
	p.pending = append(p.pending, pathEvent{event: e, trace: t, committed: time.Now()})
	p.inflight++
	select {
	case p.run.wake <- struct{}{}:
	default:
	}
}

// appendLocked adds e to the watch cache's window, unless it was compacted
// away while on its way (ExpireHistory). c.mu is held.
func (p *watchPath) appendLocked(e event, t *trace) bool {
	if e.rv <= p.cache.compacted {
		return false
	}
	p.cache.add(e)
	p.received.Add(1)
	if t != nil {
		t.appended = true
		t.windowOldest, t.windowNewest = p.cache.compacted, e.rv
	}
	return true
}

// startLocked starts the path's goroutines if they are not running. c.mu is held.
func (c *Cluster) startPathLocked(st *store) {
	if st.path.run != nil {
		return
	}
	r := &pathRun{
		wake:     make(chan struct{}, 1),
		incoming: make(chan pathEvent, c.opts.StorageBuffer),
		outgoing: make(chan pathEvent, c.opts.StorageBuffer),
		cacherIn: make(chan pathEvent, cacherIncomingSize),
		stop:     make(chan struct{}),
	}
	st.path.run = r
	go c.feed(st, r)
	go c.decode(st, r)
	go c.cache(st, r)
	go c.dispatch(st, r)
}

// stopIdlePathLocked stops the goroutines once nobody watches and nothing
// is on its way. c.mu is held.
func (c *Cluster) stopIdlePathLocked(st *store) {
	p := &st.path
	if p.run == nil || len(st.watchers) > 0 || p.inflight > 0 {
		return
	}
	close(p.run.stop)
	p.run = nil
}

// feed is etcd's side of the storage watcher's watch: it moves committed
// events into the incoming buffer, waiting while it is full.
func (c *Cluster) feed(st *store, r *pathRun) {
	p := &st.path
	for {
		select {
		case <-r.wake:
		case <-r.stop:
			return
		}
		for {
			// One at a time, so what waits on etcd's side stays counted
			// there while incoming is full.
			c.mu.Lock()
			if p.run != r {
				// Stopped, and perhaps restarted: pending belongs to the
				// next run now.
				c.mu.Unlock()
				return
			}
			if len(p.pending) == 0 {
				p.pending = nil
				c.mu.Unlock()
				break
			}
			pe := p.pending[0]
			c.mu.Unlock()
			select {
			case r.incoming <- pe:
			case <-r.stop:
				return
			}
			c.mu.Lock()
			p.pending[0] = pathEvent{}
			p.pending = p.pending[1:]
			c.mu.Unlock()
		}
	}
}

// decode is the etcd3 watcher: it takes events from incoming, decodes
// them (the stored objects are Go values already, so that is only a count),
// and passes them on through outgoing (its result channel), waiting while
// that is full.
func (c *Cluster) decode(st *store, r *pathRun) {
	p := &st.path
	for {
		var pe pathEvent
		select {
		case pe = <-r.incoming:
		case <-r.stop:
			return
		}
		in := len(r.incoming) + 1 // itself included, as it was waiting there
		p.decoded.Add(1)
		c.mu.Lock()
		pe.trace.decoded, pe.trace.incoming = true, in
		c.mu.Unlock()
		select {
		case r.outgoing <- pe:
		case <-r.stop:
			return
		}
	}
}

// cache is the cacher's side of its storage watch: it appends each event
// to the watch cache's window and queues it on the cacher's incoming
// channel, waiting while that is full, which is how a stalled dispatch
// shows as this channel's high-water mark.
func (c *Cluster) cache(st *store, r *pathRun) {
	p := &st.path
	for {
		var pe pathEvent
		select {
		case pe = <-r.outgoing:
		case <-r.stop:
			return
		}
		c.mu.Lock()
		pe.appended = p.appendLocked(pe.event, pe.trace)
		c.mu.Unlock()
		select {
		case r.cacherIn <- pe:
			high(&p.cacherHigh, len(r.cacherIn))
		case <-r.stop:
			return
		}
	}
}

// dispatch is the cacher's dispatch: it hands each event from the
// cacher's incoming channel to every watcher. A watcher whose buffer is full holds up the
// whole dispatch for at most DispatchBudget; if it has not made room by
// then it is terminated, so one slow client cannot stall the others.
func (c *Cluster) dispatch(st *store, r *pathRun) {
	p := &st.path
	for {
		var pe pathEvent
		select {
		case pe = <-r.cacherIn:
		case <-r.stop:
			return
		}
		c.mu.Lock()
		appended := pe.appended
		p.dispatchedRV = pe.rv
		var full []*watcher
		var items []item
		for w := range st.watchers {
			it, ok := w.accepts(pe.event)
			if !ok {
				continue
			}
			pe.trace.watchers++
			select {
			case w.in <- it:
				w.noteFill()
			default:
				w.blocked = true
				full = append(full, w)
				items = append(items, it)
			}
		}
		pe.trace.blocked = len(full)
		c.mu.Unlock()

		if len(full) > 0 {
			c.waitForRoom(st, r, full, items, pe.trace)
		}
		if appended {
			// Once per event, however many watchers took it, as
			// apiserver_watch_cache_events_dispatched_total counts.
			p.dispatched.Add(1)
		}
		p.dispatchNanos.Add(uint64(time.Since(pe.committed)))
		p.dispatchCount.Add(1)

		c.mu.Lock()
		p.inflight--
		c.stopIdlePathLocked(st)
		c.mu.Unlock()
	}
}

// waitForRoom gives watchers with full buffers DispatchBudget, shared, to
// take the event, and terminates those that do not.
func (c *Cluster) waitForRoom(st *store, r *pathRun, full []*watcher, items []item, t *trace) {
	budget := time.NewTimer(c.opts.DispatchBudget)
	defer budget.Stop()
	expired := false
	for i, w := range full {
		sent := false
		if !expired {
			select {
			case w.in <- items[i]:
				sent = true
			case <-w.stop:
			case <-budget.C:
				expired = true
			case <-r.stop:
				expired = true
			}
		}
		c.mu.Lock()
		w.blocked = false
		switch {
		case sent:
			w.noteFill()
		case expired:
			if _, open := st.watchers[w]; open {
				t.terminated++
				st.path.terminated.Add(1)
				c.closeLocked(w, &c.stats.watchesSlow)
			}
		}
		c.mu.Unlock()
	}
}

// high raises a high-water mark to n.
func high(mark *atomic.Int64, n int) {
	for {
		old := mark.Load()
		if int64(n) <= old || mark.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}
