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
// stream opened (synthetic ADDED events, replayed history, or one ERROR),
// then whatever writers queue in in. Writers send to in only with c.mu held
// and never block: a full buffer closes the stream. Bookmarks are queued
// through in too, under c.mu, so a bookmark never overtakes an event with a
// lower resourceVersion.
type watcher struct {
	c         *Cluster
	st        *store
	filter    filter
	bookmarks bool
	timeout   time.Duration

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

// offerLocked queues a committed event for w, closing w if it is too far
// behind. c.mu is held.
func (c *Cluster) offerLocked(w *watcher, e event) {
	it, ok := w.translate(e)
	if !ok {
		return
	}
	select {
	case w.in <- it:
	default:
		c.closeLocked(w, &c.stats.watchesSlow)
	}
}

// closeLocked is the server ending a stream. c.mu is held.
func (c *Cluster) closeLocked(w *watcher, reason *atomic.Uint64) {
	delete(w.st.watchers, w)
	if w.closed.CompareAndSwap(false, true) {
		reason.Add(1)
	}
	w.Stop()
}

// queueBookmark queues a bookmark at the current resourceVersion: every
// event up to it has already been queued, so it cannot overtake one. A full
// buffer just skips it.
func (c *Cluster) queueBookmark(w *watcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := w.st.watchers[w]; !open {
		return
	}
	select {
	case w.in <- item{typ: watch.Bookmark, rv: c.rv}:
	default:
	}
}
