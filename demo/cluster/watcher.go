package cluster

import (
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// item is one event queued for a stream. obj is a stored, immutable object
// (copied on delivery); bookmarks carry only rv; errors only status.
type item struct {
	typ        watch.EventType
	key        string
	obj        runtime.Object
	rv         uint64
	initialEnd bool
	status     *metav1.Status
}

// watcher is one WATCH stream; it implements watch.Interface.
//
// Its goroutine (run) first delivers initial, a private slice fixed when the
// stream opened (synthetic ADDED events, replayed from the watch cache, or
// one ERROR), then whatever the watch cache dispatches to in: only events
// newer than startRV, which initial already covers. Bookmarks are queued
// through in too, under c.mu, and never while the dispatcher waits to send
// to a full in, so a bookmark never overtakes an event with a lower
// resourceVersion.
type watcher struct {
	c         *Cluster
	st        *store
	filter    filter
	bookmarks bool
	timeout   time.Duration
	id        int
	client    string
	startRV   uint64 // events up to it are in initial or not for this stream

	blocked    bool          // the dispatcher waits for room in in; guarded by c.mu
	bookmarked bool          // a bookmark has been queued; guarded by c.mu
	sent       atomic.Uint64 // events written to the client
	high       atomic.Int64  // the most in has held

	initial []item
	toSort  int  // leading initial items that are synthetic ADDED events, sent in key order
	finish  bool // close after initial: an error-only stream

	in     chan item
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
	closed atomic.Bool // the server closed it (counted once)
}

var _ watch.Interface = (*watcher)(nil)

func (c *Cluster) newWatcher(st *store, f filter, opts metav1.ListOptions) *watcher {
	timeout := c.opts.WatchTimeout
	if ts := opts.TimeoutSeconds; ts != nil && *ts > 0 && time.Duration(*ts)*time.Second < timeout {
		timeout = time.Duration(*ts) * time.Second
	}
	return &watcher{
		c:         c,
		st:        st,
		filter:    f,
		bookmarks: opts.AllowWatchBookmarks,
		timeout:   timeout,
		in:        make(chan item, c.opts.WatchBuffer),
		result:    make(chan watch.Event),
		stop:      make(chan struct{}),
	}
}

// Stop ends the stream; ResultChan is closed soon after. Idempotent.
func (w *watcher) Stop() { w.once.Do(func() { close(w.stop) }) }

// ResultChan delivers the stream's events; it is closed when the stream ends.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// translate decides what a committed event looks like through this stream's
// selector: an update that makes an object match is ADDED, one that makes it
// stop matching is DELETED (the old state stamped with the new version).
func (w *watcher) translate(e event) (item, bool) {
	was := e.prev != nil && w.filter.matches(e.prev)
	switch e.typ {
	case watch.Added:
		return item{typ: watch.Added, key: e.key, obj: e.obj}, w.filter.matches(e.obj)
	case watch.Deleted:
		return item{typ: watch.Deleted, key: e.key, obj: e.obj}, was
	}
	now := w.filter.matches(e.obj)
	switch {
	case now && was:
		return item{typ: watch.Modified, key: e.key, obj: e.obj}, true
	case now:
		return item{typ: watch.Added, key: e.key, obj: e.obj}, true
	case was:
		gone := e.prev.DeepCopyObject()
		setRV(gone, e.rv)
		return item{typ: watch.Deleted, key: e.key, obj: gone}, true
	}
	return item{}, false
}

// accepts says whether a dispatched event is for this stream, and how it
// looks through the stream's selector.
func (w *watcher) accepts(e event) (item, bool) {
	if e.rv <= w.startRV {
		return item{}, false
	}
	return w.translate(e)
}

// noteFill records in's fill after a send, for its high-water mark.
func (w *watcher) noteFill() { high(&w.high, len(w.in)) }

// closeLocked is the server ending a stream. c.mu is held.
func (c *Cluster) closeLocked(w *watcher, reason *atomic.Uint64) {
	delete(w.st.watchers, w)
	if w.closed.CompareAndSwap(false, true) {
		reason.Add(1)
	}
	w.Stop()
	c.stopIdlePathLocked(w.st)
}

// queueBookmark queues a bookmark at the newest resourceVersion up to which
// every event of the resource has been dispatched, so it cannot overtake
// one. A full buffer, or one the dispatcher is waiting on, skips it. As the
// cacheWatcher does, a watch gets no bookmark behind where it started, and
// at most one at exactly that resourceVersion.
func (c *Cluster) queueBookmark(w *watcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := w.st.watchers[w]; !open || w.blocked {
		return
	}
	rv := c.rv
	if w.st.path.inflight > 0 {
		rv = w.st.path.dispatchedRV
	}
	if rv < w.startRV || rv == w.startRV && w.bookmarked {
		return
	}
	select {
	case w.in <- item{typ: watch.Bookmark, rv: rv}:
		w.bookmarked = true
		w.noteFill()
		w.st.path.bookmarks.Add(1)
	default:
	}
}
