package cluster

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// run is the stream's goroutine: it ends on Stop (client or server), the
// request context, or the timeout, and always closes the result channel.
func (w *watcher) run(ctx context.Context) {
	c := w.c
	defer func() {
		c.mu.Lock()
		delete(w.st.watchers, w)
		c.stopIdlePathLocked(w.st)
		c.mu.Unlock()
		c.stats.watchesOpen.Add(-1)
		if w.finish {
			w.st.path.errorStreams.Add(-1)
		}
		close(w.result)
	}()
	timer := time.NewTimer(w.timeout)
	defer timer.Stop()
	// The bookmark schedule starts when the watch opens, as the cacher's
	// does when it registers a watcher.
	var bookmarks *bookmarkTimer
	if w.bookmarks {
		bookmarks = c.newBookmarkTimer(w.timeout)
		defer bookmarks.stop()
	}

	slices.SortFunc(w.initial[:w.toSort], func(a, b item) int { return strings.Compare(a.key, b.key) })
	for i := range w.initial {
		if !w.deliver(ctx, timer, w.initial[i]) {
			return
		}
		w.initial[i] = item{} // let delivered objects go
	}
	if w.finish {
		return
	}
	for {
		select {
		case it := <-w.in:
			if !w.deliver(ctx, timer, it) {
				return
			}
		case <-bookmarks.C():
			c.queueBookmark(w)
			bookmarks.reset()
		case <-timer.C:
			c.stats.timedOut.Add(1)
			return
		case <-w.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// deliver hands one event to the client, giving up when the stream ends.
// A slow client (SetClientDelay) takes that long to read each event.
func (w *watcher) deliver(ctx context.Context, timer *time.Timer, it item) bool {
	ev := w.materialize(it)
	if d := time.Duration(w.st.path.clientDelay.Load()); d > 0 {
		slow := time.NewTimer(d)
		select {
		case <-slow.C:
		case <-w.stop:
			slow.Stop()
			return false
		case <-ctx.Done():
			slow.Stop()
			return false
		}
	}
	select {
	case w.result <- ev:
		w.sent.Add(1)
		w.st.path.sent.Add(1)
		if ev.Type == watch.Bookmark {
			w.c.stats.bookmarksSent.Add(1)
		} else {
			w.c.stats.eventsSent.Add(1)
		}
		return true
	case <-timer.C:
		w.c.stats.timedOut.Add(1)
	case <-w.stop:
	case <-ctx.Done():
	}
	return false
}

// materialize builds the client's copy of an event.
func (w *watcher) materialize(it item) watch.Event {
	switch it.typ {
	case watch.Bookmark:
		obj := w.st.kind.newObj()
		setRV(obj, it.rv)
		if it.initialEnd {
			m, _ := meta.Accessor(obj)
			m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		}
		return watch.Event{Type: watch.Bookmark, Object: obj}
	case watch.Error:
		return watch.Event{Type: watch.Error, Object: it.status.DeepCopy()}
	}
	return watch.Event{Type: it.typ, Object: it.obj.DeepCopyObject()}
}

func setRV(obj runtime.Object, rv uint64) {
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(strconv.FormatUint(rv, 10))
}
