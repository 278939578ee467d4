package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/demo/cluster"
)

// The watch-cache-window scenario's window, in pod events: small, so a
// short outage or a burst is enough to move past a client.
const (
	smallWindow = 100
	// windowDeletes are deleted while every client is away.
	windowDeletes = 3
	// windowBurst is more than the window holds, so after it the window
	// starts past any client that did not follow.
	windowBurst = smallWindow + 20
)

var watchCacheWindowScenario = &scenario{
	name:    "watch-cache-window",
	summary: "A small watch cache window: a quiet informer stays inside it through bookmarks, one without them relists; clients away longer than it get 410 and relist.",
	objects: 300,
	rate:    defaultRate,
	build:   buildWatchCacheWindow,
}

func buildWatchCacheWindow(cfg resolved) plan {
	p := podsOnly(cfg, []listenerPlan{{name: "fast", delay: fastDelay}, {name: "slow", delay: slowDelay}})
	p.informers = append(p.informers, quietInformers(cfg)...)
	p.server = cluster.Options{HistorySize: smallWindow, BookmarkFrequency: teachingBookmarks}
	p.status = func(d *Demo) []string { return append([]string{windowStatus(d, cluster.Pods)}, clientStatus(d)...) }
	names := []string{"pods", "quiet", "quiet-no-bookmarks"}
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			fmt.Sprintf("Watch-cache window: the API server's watch cache keeps only the last %d pod events; a watch can resume only from inside that window.", smallWindow),
			fmt.Sprintf("pods sees every pod; quiet and quiet-no-bookmarks select %s, which no pod has: no events for them. Pipeline view (1) shows the window.", quietSelector),
			bookmarkSpeedup(),
		}},
		{name: "quiet churn", after: 5 * time.Second, until: watchesSettled, do: do(func(d *Demo) {
			d.markRelists()
			d.burst(windowBurst)
		}), then: func(d *Demo) bool {
			return outsideWindow(d, "quiet-no-bookmarks") && !outsideWindow(d, "quiet") && informerRV(d, "quiet") >= d.burstRV()
		}, note: nil},
		{name: "quiet note", do: do(func(d *Demo) {
			w := d.watchWindow(cluster.Pods)
			d.setNote([]string{
				fmt.Sprintf("%d updates to other pods moved the window to RV %d–%d. Neither quiet informer got an event.", windowBurst, w.OldestRV, w.NewestRV),
				fmt.Sprintf("quiet's watch got a BOOKMARK that moved it to RV %d, inside the window; quiet-no-bookmarks still stands at RV %d, outside it. Reflector stage (1) and Events view (5).",
					informerRV(d, "quiet"), informerRV(d, "quiet-no-bookmarks")),
			})
		})},
		{name: "drop", after: 2 * time.Second, until: watchesSettled, do: do(func(d *Demo) {
			d.markWatches()
			d.cluster.DropWatches()
		}), then: func(d *Demo) bool {
			return rewatchedOne(d, "quiet") && informerSettled(d, "quiet", d.relistsBefore("quiet")) &&
				rewatchedOne(d, "pods") && informerSettled(d, "pods", d.relistsBefore("pods"))
		}, note: []string{
			"The server dropped every watch, as a restart or a load balancer would. pods and quiet re-watched from inside the window: no relist.",
			"quiet-no-bookmarks re-watches from its old RV, which the window no longer holds: watch the Events view (5) for the 410 (client-go backs off before it lists again).",
		}},
		{name: "relisted", until: func(d *Demo) bool {
			return relistedSince(d, "quiet-no-bookmarks", d.relistsBefore("quiet-no-bookmarks"))
		}, note: []string{
			"quiet-no-bookmarks got 410 Gone and listed again: a full relist for an informer with nothing new to learn, where quiet, on bookmarks, simply re-watched. That is why clients ask for bookmarks (KEP-956).",
		}},
		{name: "quiesce", after: 3 * time.Second, do: do(func(d *Demo) { d.work.hold() }), note: []string{
			"The workload pauses so the informers catch up with every change made so far.",
		}},
		{name: "away", until: func(d *Demo) bool { return caughtUp(d) && watchesSettled(d) }, do: do(func(d *Demo) {
			d.markRelists()
			d.cluster.SetAvailable(false)
		}), then: watchesDown, note: []string{
			"Bookmarks help a client that is quiet, not one that is away. The API server now refuses connections: every client is away.",
		}},
		{name: "gap", after: time.Second, do: do(func(d *Demo) {
			d.deleteWhileDown(cluster.Pods, windowDeletes)
			d.burst(windowBurst)
		}), then: func(d *Demo) bool {
			for _, n := range names {
				if !outsideWindow(d, n) {
					return false
				}
			}
			return true
		}, note: nil},
		{name: "gap note", do: do(func(d *Demo) {
			w := d.watchWindow(cluster.Pods)
			d.setNote([]string{
				fmt.Sprintf("While they were away %d pods were deleted and %d updates followed: the window now starts at RV %d, past where every client stands (%s).",
					windowDeletes, windowBurst, w.OldestRV, rvList(d, names)),
			})
		})},
		{name: "back", after: time.Second, do: do(func(d *Demo) { d.cluster.SetAvailable(true) }), then: func(d *Demo) bool {
			for _, n := range names {
				if !relistedSince(d, n, d.relistsBefore(n)) {
					return false
				}
			}
			return tombstonedMissed(d, "pods") && caughtUp(d)
		}, note: nil},
		{name: "back note", do: do(func(d *Demo) {
			d.work.release()
			d.setNote([]string{
				"The server is back. Every re-watch got 410 Gone and every informer listed again: a client away longer than the window must relist, bookmarks or not (Events view 5).",
				fmt.Sprintf("The pods listeners got DeletedFinalStateUnknown for %s, whose DELETED events fell out of the window (Listeners view 3).", strings.Join(d.deletedWhileDown(), ", ")),
			})
		})},
		{name: "done", after: 20 * time.Second, note: []string{
			"That was the watch-cache-window scenario; the churn goes on. Press w to drop the watches yourself: quiet-no-bookmarks relists whenever the window has moved past it.",
		}},
	}
	return p
}

// rvList is "pods at RV 812, quiet at RV 790" for the named informers.
func rvList(d *Demo, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s at RV %d", n, informerRV(d, n))
	}
	return strings.Join(parts, ", ")
}

// tombstonedMissed: every listener of the informer got a tombstone for each
// key deleted while it was away, and view 3 counts them.
func tombstonedMissed(d *Demo, informer string) bool {
	deleted := d.deletedWhileDown()
	for _, l := range d.Listeners(informer) {
		if !l.TombstonedAll(deleted) {
			return false
		}
	}
	e := d.Informer(informer)
	if e == nil {
		return false
	}
	for _, ls := range e.State().Listeners {
		if ls.Delivered.Tombstones < uint64(len(deleted)) {
			return false
		}
	}
	return true
}
