package demo

import (
	"fmt"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// bookmarksWindow is the bookmarks scenario's watch cache window, in pod
// events: small enough for a burst to move past a client that stood still.
const (
	bookmarksWindow = 200
	bookmarksBurst  = bookmarksWindow + 50
)

var bookmarksScenario = &scenario{
	name:    "bookmarks",
	summary: "BOOKMARKs move a quiet informer's resourceVersion with no object events, so its dropped watch resumes without the relist a client without them needs.",
	objects: 300,
	rate:    defaultRate,
	build:   buildBookmarks,
}

// bookmarkFacts is where quiet stood when the scenario began watching it;
// written by the script, read by its notes and tests.
type bookmarkFacts struct {
	mu                   sync.Mutex
	fromRV, bookmarksAt  uint64
	watchEventsAtStart   uint64
	noBookmarksRVAtStart uint64
}

func (f *bookmarkFacts) mark(d *Demo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := d.Informer("quiet").State().Reflector
	f.fromRV, f.bookmarksAt, f.watchEventsAtStart = informerRV(d, "quiet"), r.WatchBookmarks, r.WatchEvents
	f.noBookmarksRVAtStart = informerRV(d, "quiet-no-bookmarks")
}

func (f *bookmarkFacts) get() bookmarkFacts {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bookmarkFacts{fromRV: f.fromRV, bookmarksAt: f.bookmarksAt, watchEventsAtStart: f.watchEventsAtStart, noBookmarksRVAtStart: f.noBookmarksRVAtStart}
}

// bookmarked: quiet's resourceVersion has moved since mark through
// bookmarks alone: it got bookmarks and no object event.
func (f *bookmarkFacts) bookmarked(d *Demo) bool {
	start := f.get()
	r := d.Informer("quiet").State().Reflector
	objectEvents := r.WatchAdded + r.WatchModified + r.WatchDeleted
	return objectEvents == 0 && r.WatchBookmarks > start.bookmarksAt && informerRV(d, "quiet") > start.fromRV
}

func buildBookmarks(cfg resolved) plan {
	p := podsOnly(cfg, []listenerPlan{{name: "fast", delay: fastDelay}})
	p.informers = append(p.informers, quietInformers(cfg)...)
	p.server = cluster.Options{HistorySize: bookmarksWindow, BookmarkFrequency: teachingBookmarks}
	p.status = func(d *Demo) []string { return append([]string{windowStatus(d, cluster.Pods)}, clientStatus(d)...) }
	f := &bookmarkFacts{}
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, do: do(f.mark), note: []string{
			"Bookmarks: a BOOKMARK is a watch event that carries only a resourceVersion, the server's way of saying \"nothing you select changed up to here\".",
			fmt.Sprintf("quiet and quiet-no-bookmarks select %s, which no pod has. Only quiet asks for bookmarks, as every client-go reflector does.", quietSelector),
			bookmarkSpeedup(),
		}},
		{name: "bookmarked", until: f.bookmarked, do: do(func(d *Demo) {
			start := f.get()
			s := d.Informer("quiet").State()
			d.setNote([]string{
				fmt.Sprintf("quiet has had no object event, yet its resourceVersion moved from %d to %d: the server sent it %s (Reflector stage in view 1, Bookmark rows in the Events view 5).",
					start.fromRV, informerRV(d, "quiet"), humanize.Plural(s.Reflector.WatchBookmarks-start.bookmarksAt, "BOOKMARK")),
				"Where they went: " + bookmarkRows(s) + ".",
				fmt.Sprintf("quiet-no-bookmarks still stands at RV %d, where its LIST left it.", informerRV(d, "quiet-no-bookmarks")),
			})
		})},
		{name: "burst", after: 6 * time.Second, do: do(func(d *Demo) { d.burst(bookmarksBurst) }), then: func(d *Demo) bool {
			return outsideWindow(d, "quiet-no-bookmarks") && !outsideWindow(d, "quiet") && informerRV(d, "quiet") >= d.burstRV()
		}, note: nil},
		{name: "burst note", do: do(func(d *Demo) {
			w := d.watchWindow(cluster.Pods)
			d.setNote([]string{
				fmt.Sprintf("%d updates to other pods moved the watch cache's window to RV %d–%d (Pipeline view 1).", bookmarksBurst, w.OldestRV, w.NewestRV),
				fmt.Sprintf("quiet followed on bookmarks to RV %d, inside the window. quiet-no-bookmarks is still at RV %d, now outside it.", informerRV(d, "quiet"), informerRV(d, "quiet-no-bookmarks")),
			})
		})},
		{name: "drop", after: 4 * time.Second, until: watchesSettled, do: do(func(d *Demo) {
			d.markRelists()
			d.markWatches()
			d.cluster.DropWatches()
		}), then: func(d *Demo) bool {
			return rewatchedOne(d, "quiet") && informerSettled(d, "quiet", d.relistsBefore("quiet"))
		}, note: []string{
			"The server dropped every watch. quiet re-watched from its last bookmark's resourceVersion, inside the window: no relist.",
			"quiet-no-bookmarks re-watches from its LIST's resourceVersion, which the window no longer holds: watch the Events view (5) for the 410.",
		}},
		{name: "relisted", until: func(d *Demo) bool {
			return relistedSince(d, "quiet-no-bookmarks", d.relistsBefore("quiet-no-bookmarks"))
		}, note: []string{
			"quiet-no-bookmarks got 410 Gone and listed again, though nothing it selects had changed. quiet, on bookmarks, is still on its first LIST.",
		}},
		{name: "done", after: 20 * time.Second, note: []string{
			"That was the bookmarks scenario; the churn goes on. Press w to drop the watches again: quiet resumes where its last bookmark left it.",
		}},
	}
	return p
}

// bookmarkRows says where an informer's bookmarks went: a RealFIFO under
// client-go's AtomicFIFO gate queues each as a Bookmark delta; a DeltaFIFO
// has no such delta and only the resourceVersion is kept.
func bookmarkRows(s source.Informer) string {
	switch {
	case s.Queue.Added.Bookmark > 0:
		return fmt.Sprintf("its RealFIFO queued each as a Bookmark delta (%d so far; each passes the Queue view 2 as a (Bookmark) row) that sets the store's resourceVersion when popped and notifies no handler", s.Queue.Added.Bookmark)
	case s.QueueKind == source.RealFIFO:
		return "this RealFIFO runs without client-go's AtomicFIFO gate, so it queued nothing: the reflector keeps the resourceVersion itself"
	}
	return "a DeltaFIFO has no Bookmark delta, so nothing was queued: the reflector keeps the resourceVersion itself"
}
