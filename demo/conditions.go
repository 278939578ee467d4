package demo

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// informersSynced: every informer's HasSynced is true.
func informersSynced(d *Demo) bool {
	for _, e := range d.Informers() {
		if !e.HasSynced() {
			return false
		}
	}
	return true
}

// registrationsSynced: every handler registration's HasSynced is true.
func registrationsSynced(d *Demo) bool {
	return d.RegistrationsSynced()
}

// settledWatch is how long a watch must have been open, if it has not
// delivered events yet, before a script breaks it: client-go treats a watch
// that closes within a second without a single event as a failure and
// relists, which is not the lesson of a drop.
const settledWatch = time.Second

// watchMark remembers, per informer, the watch last seen open and how many
// watch events had been counted when it was first seen past its list.
type watchMark struct {
	since  time.Time
	seen   time.Time
	events uint64
}

// watchesSettled: every informer's watch is open, past any streamed list,
// and either has delivered events or has been open for settledWatch since.
// Two events are required because the first one counted may belong to the
// watch before. A streamed list's own events do not count, nor its time:
// client-go times the watch from the end of the stream.
func watchesSettled(d *Demo) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.watchMarks == nil {
		d.watchMarks = map[string]watchMark{}
	}
	settled := true
	for _, e := range d.Informers() {
		r := e.State().Reflector
		if !r.WatchOpen || r.ListInProgress {
			settled = false
			continue
		}
		m, ok := d.watchMarks[e.Name()]
		if !ok || !m.since.Equal(r.WatchSince) {
			m = watchMark{since: r.WatchSince, seen: time.Now(), events: r.WatchEvents}
			if !r.ListStreamed {
				// After a LIST the watch has been a plain one since it
				// opened; after a stream, counting from now is safe.
				m.seen = r.WatchSince
			}
			d.watchMarks[e.Name()] = m
		}
		if r.WatchEvents < m.events+2 && time.Since(m.seen) < settledWatch {
			settled = false
		}
	}
	return settled
}

// caughtUp: every informer's queue is empty and its store equals the
// server's state.
func caughtUp(d *Demo) bool {
	for _, e := range d.Informers() {
		if e.State().Queue.Depth != 0 || d.storeDiff(e) != "" {
			return false
		}
	}
	return true
}

// listenersIdle: no listener has a backlog or a callback in progress.
func listenersIdle(d *Demo) bool {
	for _, e := range d.Informers() {
		for _, ls := range e.State().Listeners {
			if ls.Pending != 0 || ls.InCallback != "" {
				return false
			}
		}
	}
	return true
}

// userLetGo: the user has not paused processing. Script steps that pause
// or resume wait for it: the user's pause wins over the script.
func userLetGo(d *Demo) bool { return d.PausedBy() != source.PausedByYou }

// drained: processing runs, every queue is empty with everything popped
// processed, and no listener has a backlog or a callback in progress.
func drained(d *Demo) bool { return queuesDrained(d) && listenersIdle(d) }

// queuesDrained: processing runs and every queue is empty with everything
// popped processed; the listeners may still be working through backlogs.
func queuesDrained(d *Demo) bool {
	if d.Paused() {
		return false
	}
	for _, e := range d.Informers() {
		if !e.Drained() {
			return false
		}
	}
	return true
}

// sameDeliveries: within each informer every listener has had the same
// number of calls of each kind, and listeners of the same name on
// different informers too (fifo-compare).
func sameDeliveries(d *Demo) bool {
	byName := map[string]source.Delivered{}
	for _, e := range d.Informers() {
		var first *source.Delivered
		for _, ls := range e.State().Listeners {
			if first == nil {
				first = &ls.Delivered
			} else if ls.Delivered != *first {
				return false
			}
			if prev, ok := byName[ls.Name]; ok && prev != ls.Delivered {
				return false
			}
			byName[ls.Name] = ls.Delivered
		}
	}
	return true
}

// burstQueued: every informer's reflector has put the last burst into its
// queue (it has seen the server's resourceVersion after the burst). The
// scenarios that burst watch only the burst's resource.
func burstQueued(d *Demo) bool {
	d.mu.Lock()
	want := d.facts.burstRV
	d.mu.Unlock()
	for _, e := range d.Informers() {
		rv, err := strconv.ParseUint(e.LastSyncResourceVersion(), 10, 64)
		if err != nil || rv < want {
			return false
		}
	}
	return true
}

// inCallback: the named listener is inside one of its callbacks.
func inCallback(d *Demo, informer, listener string) bool {
	e := d.Informer(informer)
	if e == nil {
		return false
	}
	for _, ls := range e.State().Listeners {
		if ls.Name == listener {
			return ls.InCallback != ""
		}
	}
	return false
}

// markWatches remembers each informer's count of opened watches before the
// script breaks them.
func (d *Demo) markWatches() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.facts.watchesBefore = make(map[string]uint64, len(d.Informers()))
	for _, e := range d.Informers() {
		d.facts.watchesBefore[e.Name()] = e.State().Reflector.Watches
	}
}

// rewatched: every informer has opened a new watch since markWatches and
// has it open.
func rewatched(d *Demo) bool {
	d.mu.Lock()
	before := d.facts.watchesBefore
	d.mu.Unlock()
	for _, e := range d.Informers() {
		if r := e.State().Reflector; !r.WatchOpen || r.Watches <= before[e.Name()] {
			return false
		}
	}
	return true
}

// watchesDown: no informer has a watch open.
func watchesDown(d *Demo) bool {
	for _, e := range d.Informers() {
		if e.State().Reflector.WatchOpen {
			return false
		}
	}
	return true
}

// listStarted: every informer's reflector has started its initial list.
func listStarted(d *Demo) bool {
	for _, e := range d.Informers() {
		if e.State().Reflector.Lists == 0 {
			return false
		}
	}
	return true
}

// storeDiff compares an informer's cache with the server, key by key and
// resourceVersion by resourceVersion; "" when they are equal, otherwise a
// short description of the first differences.
func (d *Demo) storeDiff(e *local.Informer) string {
	server := d.serverTruth(e)
	cached := e.Objects()
	var diffs []string
	seen := make(map[string]bool, len(cached))
	for _, obj := range cached {
		key, rv := local.KeyAndVersion(obj)
		seen[key] = true
		want, ok := server[key]
		switch {
		case !ok:
			diffs = append(diffs, key+" is cached but gone from the server")
		case resourceVersion(want) != rv:
			diffs = append(diffs, fmt.Sprintf("%s is cached at resourceVersion %s, the server has %s", key, rv, resourceVersion(want)))
		}
	}
	for key := range server {
		if !seen[key] {
			diffs = append(diffs, key+" is on the server but not cached")
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("… %d differences in all", len(diffs)))
	}
	return fmt.Sprintf("informer %s: %v", e.Name(), diffs)
}

func resourceVersion(obj any) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return acc.GetResourceVersion()
}
