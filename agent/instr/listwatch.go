package instr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

// ObservedListerWatcher sits between client-go's reflector and the real
// ListerWatcher and records every LIST page, WATCH stream, watch event and
// error. It changes nothing it passes through, and answers client-go's
// WatchList question as the wrapped ListerWatcher does. The engine puts one
// in front of its own reflector (NewObservedListerWatcher), whose queue
// reports what the reflector stored (StoreCall, Bookmarked, Replaced); the
// agent puts one in front of client-go's (ObserveListerWatcher), which
// counts them in the stream instead.
//
// Counters are atomics; the few strings (last error) sit behind mu.
type ObservedListerWatcher struct {
	orig     cache.ListerWatcher
	inner    cache.ListerWatcherWithContext
	informer string
	sink     Sink
	now      func() time.Time
	// tapStreams forwards watch streams through a goroutine to see ERROR events.
	tapStreams bool
	// countInTap: no engine queue reports the events the reflector stored
	// (StoreCall, Bookmarked, Replaced), so the tap counts them as it
	// forwards them. Set with tapStreams, for informers the engine does not
	// run.
	countInTap bool
	// items receives one event per watch event; nil unless ItemEvents.
	items Sink

	lists, listPages, listedItems, relists         atomic.Uint64
	watches, watchEvents                           atomic.Uint64
	watchAdded, watchModified, watchDeleted        atomic.Uint64
	watchBookmarks, watchErrors, errs              atomic.Uint64
	listInProgress, streaming                      atomic.Bool
	listCompleted                                  atomic.Bool // a full list completed since the last one began
	listStreamed                                   atomic.Bool // the newest list began as a WatchList stream
	lastListItems                                  atomic.Int64
	lastListNanos, listStartNanos, watchSinceNanos atomic.Int64
	openWatches                                    atomic.Int64
	watchTimeoutNanos                              atomic.Int64 // the newest watch's TimeoutSeconds; 0: none asked
	heard                                          heard

	mu            sync.Mutex
	lastError     string
	lastErrorTime time.Time
	lastCallErr   error // the newest error a List or Watch call returned
}

// watchListSupport mirrors the optional interface client-go's reflector
// consults to decide whether to stream the initial list; the observer must
// answer exactly as the wrapped ListerWatcher would.
type watchListSupport interface {
	IsWatchListSemanticsUnSupported() bool
}

func newObserved(lw cache.ListerWatcher, informer string, sink Sink) *ObservedListerWatcher {
	return &ObservedListerWatcher{
		orig:     lw,
		inner:    cache.ToListerWatcherWithContext(lw),
		informer: informer,
		sink:     sink,
		now:      time.Now,
	}
}

// IsWatchListSemanticsUnSupported forwards the wrapped ListerWatcher's answer.
func (o *ObservedListerWatcher) IsWatchListSemanticsUnSupported() bool {
	if s, ok := o.orig.(watchListSupport); ok {
		return s.IsWatchListSemanticsUnSupported()
	}
	return false
}

func (o *ObservedListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return o.ListWithContext(context.Background(), options)
}

func (o *ObservedListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return o.WatchWithContext(context.Background(), options)
}

func (o *ObservedListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	start := o.now()
	if options.Continue == "" {
		o.beginList(start, false)
	}
	list, err := o.inner.ListWithContext(ctx, options)
	if err != nil {
		o.listInProgress.Store(false)
		o.recordError("list", err)
		return list, err
	}
	o.listPages.Add(1)
	o.heard.note(o.now())
	items := meta.LenList(list)
	o.listedItems.Add(uint64(items))
	total := o.lastListItems.Add(int64(items))
	cont, rv := "", ""
	if acc, aerr := meta.ListAccessor(list); aerr == nil {
		cont, rv = acc.GetContinue(), acc.GetResourceVersion()
	}
	o.sink.Emit(Event{Type: pipeline.EventListPage, Informer: o.informer, Count: items, Detail: cont, Duration: o.now().Sub(start)})
	if cont == "" {
		o.listInProgress.Store(false)
		o.listCompleted.Store(true)
		elapsed := o.now().Sub(time.Unix(0, o.listStartNanos.Load()))
		o.lastListNanos.Store(int64(elapsed))
		o.sink.Emit(Event{Type: pipeline.EventListDone, Informer: o.informer, Count: int(total), Detail: rv, Duration: elapsed})
	}
	return list, nil
}

// beginList counts a new full list, LIST or streamed. The first one after
// a list completed is a relist; another attempt after a failed one (the
// reflector retrying, or the pager restarting on an expired continue
// token) is the same relist, and retries before the first list ever
// completed are no relist at all. A list begun here supersedes a streamed
// list that never completed. streamed says whether it is a WatchList
// stream rather than LIST pages.
func (o *ObservedListerWatcher) beginList(start time.Time, streamed bool) {
	o.listStreamed.Store(streamed)
	o.lists.Add(1)
	if o.listCompleted.Swap(false) {
		o.relists.Add(1)
		o.sink.Emit(Event{Type: pipeline.EventRelist, Informer: o.informer})
	}
	o.streaming.Store(false)
	o.listInProgress.Store(true)
	o.lastListItems.Store(0)
	o.listStartNanos.Store(start.UnixNano())
}

func (o *ObservedListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	streaming := options.SendInitialEvents != nil && *options.SendInitialEvents
	if streaming {
		// A streamed initial list replaces LIST; count it as one.
		o.beginList(o.now(), true)
	}
	w, err := o.inner.WatchWithContext(ctx, options)
	if err != nil {
		if streaming {
			o.listInProgress.Store(false)
		}
		o.recordError("watch", err)
		return w, err
	}
	o.watches.Add(1)
	o.openWatches.Add(1)
	opened := o.now()
	// Date the previous watch's last events now, so that only this
	// watch's own show up after WatchSince (see FreshnessOf).
	o.Upkeep(opened)
	o.watchSinceNanos.Store(opened.UnixNano())
	var timeout time.Duration
	if options.TimeoutSeconds != nil && *options.TimeoutSeconds > 0 {
		timeout = time.Duration(*options.TimeoutSeconds) * time.Second
	}
	o.watchTimeoutNanos.Store(int64(timeout))
	o.heard.note(opened)
	o.sink.Emit(Event{Type: pipeline.EventWatchOpen, Informer: o.informer, Detail: options.ResourceVersion})
	return newObservedWatch(w, o, streaming), nil
}

func (o *ObservedListerWatcher) recordError(verb string, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	o.errs.Add(1)
	msg := verb + ": " + err.Error()
	o.mu.Lock()
	o.lastError, o.lastErrorTime = msg, o.now()
	if verb == "list" || verb == "watch" {
		o.lastCallErr = err
	}
	o.mu.Unlock()
	o.sink.Emit(Event{Type: pipeline.EventWatchError, Informer: o.informer, Detail: msg})
}

// StoreCall counts one change (Added, Modified or Deleted) the reflector
// handed to the queue: each one is a watch event. Counting here rather than
// in the watch stream keeps the stream untouched (no extra goroutine or
// channel hop per event).
func (o *ObservedListerWatcher) StoreCall(t watch.EventType, obj any) {
	o.watchEvents.Add(1)
	switch t {
	case watch.Added:
		o.watchAdded.Add(1)
	case watch.Modified:
		o.watchModified.Add(1)
	case watch.Deleted:
		o.watchDeleted.Add(1)
	}
	if o.items != nil {
		o.items.Emit(Event{Type: pipeline.EventWatchEvent, Informer: o.informer, Detail: string(t), Obj: obj})
	}
}

// Bookmarked counts a bookmark the reflector handed to the queue.
func (o *ObservedListerWatcher) Bookmarked() {
	o.watchEvents.Add(1)
	o.watchBookmarks.Add(1)
	o.heard.bookmark(o.now())
}

// WatchFailed records an error the reflector reports to its watch error
// handler. Most are a failed List or Watch call coming back wrapped: those
// were counted when the call returned and are not counted again. The rest
// are failures after a successful LIST (a list it cannot understand or
// store). The reflector never reports an ERROR event inside a watch stream,
// a 410 Gone among them, to the handler: only the stream tap sees those.
func (o *ObservedListerWatcher) WatchFailed(err error) {
	o.mu.Lock()
	seen := o.lastCallErr != nil && errors.Is(err, o.lastCallErr)
	o.mu.Unlock()
	if seen {
		return
	}
	o.recordError("list and watch", err)
}

// closed ends a watch stream; events is how many watch events the
// reflector took from it (the reflector runs one stream at a time).
func (o *ObservedListerWatcher) closed(events uint64) {
	o.openWatches.Add(-1)
	o.sink.Emit(Event{Type: pipeline.EventWatchClose, Informer: o.informer, Count: int(events)})
}

// Replaced ends a streamed initial list: the reflector hands the whole
// list to the queue once the initial-events bookmark arrived.
func (o *ObservedListerWatcher) Replaced(items int) {
	if !o.streaming.CompareAndSwap(true, false) {
		return
	}
	o.listInProgress.Store(false)
	o.listCompleted.Store(true)
	o.lastListItems.Store(int64(items))
	o.listedItems.Add(uint64(items))
	elapsed := o.now().Sub(time.Unix(0, o.listStartNanos.Load()))
	o.lastListNanos.Store(int64(elapsed))
	o.sink.Emit(Event{Type: pipeline.EventListDone, Informer: o.informer, Count: items, Detail: "streamed", Duration: elapsed})
}

func (o *ObservedListerWatcher) Stats(now time.Time) ReflectorStats {
	lastEvent := o.Upkeep(now)
	o.mu.Lock()
	lastErr, lastErrTime := o.lastError, o.lastErrorTime
	o.mu.Unlock()
	open := o.openWatches.Load() > 0
	var since time.Time
	var timeout time.Duration
	if open {
		since = time.Unix(0, o.watchSinceNanos.Load())
		timeout = time.Duration(o.watchTimeoutNanos.Load())
	}
	return ReflectorStats{
		Lists:          o.lists.Load(),
		ListPages:      o.listPages.Load(),
		ListedItems:    o.listedItems.Load(),
		ListInProgress: o.listInProgress.Load(),
		ListStreamed:   o.listStreamed.Load(),
		LastListItems:  int(o.lastListItems.Load()),
		LastListTime:   time.Duration(o.lastListNanos.Load()),
		Relists:        o.relists.Load(),
		Watches:        o.watches.Load(),
		WatchOpen:      open,
		WatchSince:     since,
		WatchTimeout:   timeout,
		WatchEvents:    o.watchEvents.Load(),
		WatchAdded:     o.watchAdded.Load(),
		WatchModified:  o.watchModified.Load(),
		WatchDeleted:   o.watchDeleted.Load(),
		WatchBookmarks: o.watchBookmarks.Load(),
		WatchErrors:    o.watchErrors.Load(),
		Errors:         o.errs.Load(),
		LastError:      lastErr,
		LastErrorTime:  lastErrTime,

		LastEventTime:    lastEvent,
		LastBookmarkTime: unixTime(o.heard.lastBookmarkNanos.Load()),
		LastHeard:        unixTime(o.heard.lastHeardNanos.Load()),
	}
}

// observedWatch notes when the reflector stops a stream. Without a tap it
// hands the stream over untouched. With a tap (Instrumentation.TapWatchStreams)
// a goroutine forwards each event so that ERROR events — a 410 Gone among
// them, which the reflector handles without telling anyone — are recorded;
// that costs one channel hop per event, so it is opt-in.
type observedWatch struct {
	inner        watch.Interface
	o            *ObservedListerWatcher
	out          chan watch.Event // nil without a tap
	stop         chan struct{}
	stopOnce     sync.Once
	eventsAtOpen uint64 // the observer's watch event count when the stream opened
	// changesAtOpen is the observer's count of changes when the stream
	// opened (countInTap: a streamed list's items are those after it).
	changesAtOpen uint64
	// initial: the stream is a streamed list whose initial events the
	// reflector keeps in a store of its own, never the queue, so the tap
	// counts them until the bookmark that ends them.
	initial bool
}

func newObservedWatch(inner watch.Interface, o *ObservedListerWatcher, streaming bool) *observedWatch {
	if streaming {
		// The streamed list ends when the queue gets its Replace.
		o.streaming.Store(true)
	}
	w := &observedWatch{inner: inner, o: o, stop: make(chan struct{}), eventsAtOpen: o.watchEvents.Load(), changesAtOpen: o.changes(),
		initial: streaming && !o.countInTap}
	if o.tapStreams {
		w.out = make(chan watch.Event)
		go w.forward()
	}
	return w
}

func (w *observedWatch) ResultChan() <-chan watch.Event {
	if w.out == nil {
		return w.inner.ResultChan()
	}
	return w.out
}

func (w *observedWatch) forward() {
	defer close(w.out)
	in := w.inner.ResultChan()
	for {
		select {
		case <-w.stop:
			return
		case ev, ok := <-in:
			if !ok {
				return
			}
			if ev.Type == watch.Error {
				w.o.streamError(apierrors.FromObject(ev.Object))
			} else if w.o.countInTap {
				w.count(ev)
			} else if w.initial {
				w.countInitial(ev)
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		}
	}
}

func (w *observedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.inner.Stop()
		w.o.closed(w.o.watchEvents.Load() - w.eventsAtOpen)
	})
}

// count records a forwarded event as the queue would: a change, or a
// bookmark, whose initial-events-end annotation ends a streamed list of
// the changes the stream carried before it.
func (w *observedWatch) count(ev watch.Event) {
	if ev.Type != watch.Bookmark {
		w.o.StoreCall(ev.Type, nil)
		return
	}
	w.o.Bookmarked()
	if acc, err := meta.Accessor(ev.Object); err == nil && acc.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
		w.o.Replaced(int(w.o.changes() - w.changesAtOpen))
	}
}

// countInitial counts a streamed list's initial events, which a LIST would
// not have made watch events but a stream does: its ADDED events and the
// bookmark that ends them. The events after that bookmark reach the queue
// and are counted there.
func (w *observedWatch) countInitial(ev watch.Event) {
	switch ev.Type {
	case watch.Added:
		w.o.watchEvents.Add(1)
		w.o.watchAdded.Add(1)
	case watch.Bookmark:
		w.o.Bookmarked()
		if acc, err := meta.Accessor(ev.Object); err == nil && acc.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
			w.initial = false
		}
	}
}

// streamError records an ERROR event seen inside a watch stream.
func (o *ObservedListerWatcher) streamError(err error) {
	if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		o.watchErrors.Add(1)
		err = fmt.Errorf("410 Gone, the reflector relists: %w", err)
	}
	o.recordError("watch stream", err)
}

// NewObservedListerWatcher observes lw for the engine's informer named
// informer, whose queue reports what the reflector stored; its lifecycle
// events go to sink (nil: nowhere).
func NewObservedListerWatcher(lw cache.ListerWatcher, informer string, sink Sink) *ObservedListerWatcher {
	return newObserved(lw, informer, sink)
}

// ObserveListerWatcher observes lw for an informer the engine does not run
// (client-go's own): every watch stream is forwarded through a goroutine
// that counts its events (one channel hop per event), since no engine
// queue reports them. Lifecycle events (lists, relists, watches opened and
// closed, errors) go to sink (nil: nowhere).
func ObserveListerWatcher(lw cache.ListerWatcher, informer string, sink Sink) *ObservedListerWatcher {
	o := newObserved(lw, informer, sink)
	o.tapStreams, o.countInTap = true, true
	return o
}

// ListerWatcher is what to give the informer in lw's place.
func (o *ObservedListerWatcher) ListerWatcher() cache.ListerWatcher { return o }

// TapWatchStreams forwards every watch stream through a goroutine that
// records its ERROR events (a 410 Gone among them). Call before the
// informer runs.
func (o *ObservedListerWatcher) TapWatchStreams() { o.tapStreams = true }

// EmitItems sends one event per watch event to items. Call before the
// informer runs.
func (o *ObservedListerWatcher) EmitItems(items Sink) { o.items = items }

// Wrap puts wrap around the observed ListerWatcher, beneath the
// observation. Call before the informer runs.
func (o *ObservedListerWatcher) Wrap(wrap func(cache.ListerWatcher) cache.ListerWatcher) {
	o.orig = wrap(o.orig)
	o.inner = cache.ToListerWatcherWithContext(o.orig)
}

// SetClock makes the observer read the time from now instead of the
// clock (tests date what it records). Call before anything is observed.
func (o *ObservedListerWatcher) SetClock(now func() time.Time) { o.now = now }
