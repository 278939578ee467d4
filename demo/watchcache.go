package demo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/source/local"
)

// Helpers shared by the scenarios about the server side of a watch:
// slow-watcher, watch-cache-window and bookmarks.

// teachingBookmarks is how often the scenarios about bookmarks send them:
// kube-apiserver sends one about every minute, too seldom to watch, so they
// speed it up and say so (speedupNote, and the watch cache stage's "×60").
const teachingBookmarks = time.Second

// bookmarkSpeedup says how much more often than kube-apiserver v1.37 a
// scenario sends bookmarks, for its notes.
func bookmarkSpeedup() string {
	return fmt.Sprintf("Bookmarks here come every %s, %d× kube-apiserver v1.37's pace (about once a minute per watch), so that you can watch them.",
		teachingBookmarks, int(cluster.DefaultBookmarkFrequency/teachingBookmarks))
}

// quietSelector matches no pod the demo generates, so an informer using it
// lists nothing and gets no object events while the other pods churn: the
// quiet client bookmarks exist for (KEP-956).
const quietSelector = "app=nightly-report"

// quietInformers are the same quiet informer twice: one whose watches get
// bookmarks (as every client-go reflector asks for) and one without.
func quietInformers(cfg resolved) []informerPlan {
	sel := cluster.Selector{LabelSelector: quietSelector}
	return []informerPlan{
		{name: "quiet", resource: cluster.Pods, queue: cfg.Queue, selector: sel, listeners: []listenerPlan{{name: "fast", delay: fastDelay}}},
		{name: "quiet-no-bookmarks", resource: cluster.Pods, queue: cfg.Queue, selector: sel, noBookmarks: true, listeners: []listenerPlan{{name: "fast", delay: fastDelay}}},
	}
}

// clientRV is the resourceVersion an informer's reflector would resume a
// watch from; 0 when it has none yet.
func clientRV(e *local.Informer) uint64 {
	rv, _ := strconv.ParseUint(e.LastSyncResourceVersion(), 10, 64)
	return rv
}

// informerRV is clientRV by informer name; 0 for an unknown informer.
func informerRV(d *Demo, name string) uint64 {
	if e := d.Informer(name); e != nil {
		return clientRV(e)
	}
	return 0
}

// watchWindow is the resource's watch cache window now.
func (d *Demo) watchWindow(resource string) cluster.CacheStats {
	p, _ := d.cluster.WatchPath(resource)
	return p.Cache
}

// outsideWindow: a watch from the informer's resourceVersion would get 410,
// as the watch cache no longer holds the events after it.
func outsideWindow(d *Demo, name string) bool {
	e := d.Informer(name)
	return e != nil && clientRV(e) < d.watchWindow(e.Resource()).OldestRV
}

// pathIdle: every write to the resource has reached the watch cache, none
// waits in etcd or in the storage watcher's buffers.
func (d *Demo) pathIdle(resource string) bool {
	p, ok := d.cluster.WatchPath(resource)
	return ok && p.EtcdPending == 0 && p.Incoming.Len == 0 && p.Outgoing.Len == 0 && p.Cache.NewestRV == d.cluster.ResourceVersion()
}

// informerSettled: the informer's watch is open, it has not relisted since
// relistsFrom and its cache equals the server.
func informerSettled(d *Demo, name string, relistsFrom uint64) bool {
	e := d.Informer(name)
	if e == nil {
		return false
	}
	r := e.State().Reflector
	return r.WatchOpen && !r.ListInProgress && r.Relists == relistsFrom && d.storeDiff(e) == ""
}

// relistedSince: the informer has relisted since relistsFrom, finished the
// list, has its watch open again and its cache equals the server.
func relistedSince(d *Demo, name string, relistsFrom uint64) bool {
	e := d.Informer(name)
	if e == nil {
		return false
	}
	r := e.State().Reflector
	return r.Relists > relistsFrom && r.WatchOpen && !r.ListInProgress && d.storeDiff(e) == ""
}

// windowStatus is the watch cache's line for a resource: its window and
// the watches it serves, as the Pipeline view (1) draws them.
func windowStatus(d *Demo, resource string) string {
	p, ok := d.cluster.WatchPath(resource)
	if !ok {
		return ""
	}
	line := fmt.Sprintf("watch cache (%s): window RV %d–%d, %d of %d events", resource, p.Cache.OldestRV, p.Cache.NewestRV, p.Cache.Len, p.Cache.Capacity)
	var ws []string
	for _, w := range p.Watchers {
		s := fmt.Sprintf("%s buffer %d/%d", w.Client, w.Buffer.Len, w.Buffer.Cap)
		if w.Blocked {
			s += " (full, waiting)"
		}
		ws = append(ws, s)
	}
	if len(ws) > 0 {
		line += " · " + strings.Join(ws, " · ")
	}
	cs := d.cluster.Stats()
	return line + fmt.Sprintf(" · terminated %d · 410s %d", cs.WatchesSlow, cs.Expired)
}

// clientStatus is one line per informer: where its reflector stands and
// what it has asked for.
func clientStatus(d *Demo) []string {
	var lines []string
	for _, e := range d.Informers() {
		r := e.State().Reflector
		lines = append(lines, fmt.Sprintf("%s: at RV %d · %s · LISTs %d (relists %d) · WATCHes %d · object events %d · bookmarks %d",
			e.Name(), clientRV(e), watchState(r, false), r.Lists, r.Relists, r.Watches, r.WatchAdded+r.WatchModified+r.WatchDeleted, r.WatchBookmarks))
	}
	return lines
}

// serverTruth is what the server holds of the informer's resource as its
// selector sees it: what its cache should equal once caught up.
func (d *Demo) serverTruth(e *local.Informer) map[string]runtime.Object {
	for _, ip := range d.plan.informers {
		if ip.name != e.Name() || ip.selector == (cluster.Selector{}) {
			continue
		}
		objs, err := d.cluster.SnapshotOf(e.Resource(), ip.selector)
		if err != nil {
			// New built this informer with the same selector, so the
			// cluster accepted it then.
			panic(fmt.Sprintf("demo: informer %s: %v", e.Name(), err))
		}
		return objs
	}
	return d.cluster.Snapshot(e.Resource())
}

// rewatchedOne: the informer has opened a new watch since markWatches and
// has it open.
func rewatchedOne(d *Demo, name string) bool {
	e := d.Informer(name)
	if e == nil {
		return false
	}
	d.mu.Lock()
	before := d.facts.watchesBefore[name]
	d.mu.Unlock()
	r := e.State().Reflector
	return r.WatchOpen && r.Watches > before
}

// relistsBefore is the informer's relist count recorded by markRelists.
func (d *Demo) relistsBefore(name string) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.facts.relistsBefore[name]
}

// burstRV is the server's resourceVersion after the last burst.
func (d *Demo) burstRV() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.facts.burstRV
}
