package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/source/local"
)

// expiredDeletes is how many pods the expired scenario deletes while the
// watch is down.
const expiredDeletes = 5

var expiredScenario = &scenario{
	name:    "expired",
	summary: "Deletes while the watch is down and the history is trimmed: 410 Gone, a relist, and DeletedFinalStateUnknown deletes.",
	objects: 300,
	rate:    defaultRate,
	build:   buildExpired,
}

func buildExpired(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	p.status = func(d *Demo) []string {
		return append(append(reflectorStatus(d), tombstoneStatus(d)...), relistSyncStatus(d)...)
	}
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"Expired: in a moment the watch goes down, some pods are deleted, and the server forgets the history the reflector would need to catch up.",
			"Keep an eye on the Events view (5) and the Listeners view (3).",
		}},
		{
			// Hold the workload until the informer has seen every change, so
			// the only deletes it misses are the script's own.
			name: "quiesce", after: 6 * time.Second,
			do:   do(func(d *Demo) { d.work.hold() }),
			note: []string{"The workload pauses for a moment so the informer catches up with every change made so far."},
		},
		// The outage is kept short on purpose: client-go's backoff grows with
		// every failed retry, and a long outage would end in a long wait.
		{name: "server down", until: func(d *Demo) bool { return caughtUp(d) && watchesSettled(d) },
			do: do(func(d *Demo) {
				d.markRelists()
				d.cluster.SetAvailable(false)
			}), then: watchesDown, note: []string{
				"The API server refuses connections: the watch is down. While it is, some pods are deleted and the server compacts its history.",
			}},
		{name: "delete while down", after: time.Second, do: do(func(d *Demo) {
			d.deleteWhileDown(d.Informers()[0].Resource(), expiredDeletes)
			d.cluster.ExpireHistory()
			d.setNote(append([]string{"Pods were deleted while the watch was down, and the server compacted its history: the resourceVersion the reflector would resume from is gone."}, expiredNote(d)...))
		})},
		// The reflector finds the server back only at its next retry, after
		// a backoff wait: the note says what will happen, and the next
		// step waits for the 410 before saying it happened.
		{name: "server up", after: time.Second, do: do(func(d *Demo) {
			d.cluster.SetAvailable(true)
			d.setNote(append(serverUpNote(d, time.Now()), expiredNote(d)...))
		})},
		{name: "gone", until: goneSeen, do: do(func(d *Demo) {
			d.setNote(append(goneNote(d), expiredNote(d)...))
		})},
		// The workload stays held until the relist: anything deleted before
		// it would be missed as well and blur the lesson.
		{name: "relisted", until: func(d *Demo) bool { return relistedWithTombstones(d) && caughtUp(d) }, do: do(func(d *Demo) {
			d.work.release()
			d.setNote([]string{
				"After the relist every listener got OnDelete(DeletedFinalStateUnknown) for exactly the pods deleted while the watch was down: never seen as events, only missing from the new list.",
				relistSyncNote(d),
				"Listeners view (3): TOMB and DELIVERED per listener. The Store view (4) matches the server again.",
			})
		})},
		// No loop: client-go's backoff grows with every fault and resets
		// only after two calm minutes, so a repeat would mostly show waiting.
		{name: "done", after: 20 * time.Second, note: []string{
			"That was the expired scenario; the churn goes on. Press x to expire the history yourself and watch the next relist in the Events view (5).",
		}},
	}
	return p
}

// expiredNote names the pods the script deleted while the watch was down.
func expiredNote(d *Demo) []string {
	deleted := d.deletedWhileDown()
	return []string{fmt.Sprintf("Deleted while the watch was down: %s. The informer never saw those deletes.", strings.Join(deleted, ", "))}
}

// markRelists remembers each informer's relist count before a fault.
func (d *Demo) markRelists() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.facts.relistsBefore = make(map[string]uint64, len(d.Informers()))
	d.facts.faultMark = make(map[string]faultMark, len(d.Informers()))
	for _, e := range d.Informers() {
		s := e.State()
		d.facts.relistsBefore[e.Name()] = s.Reflector.Relists
		m := faultMark{errors: s.Reflector.Errors, gone: s.Reflector.WatchErrors, syncs: map[string]uint64{}}
		for _, ls := range s.Listeners {
			m.syncs[ls.Name] = ls.Delivered.Sync
		}
		d.facts.faultMark[e.Name()] = m
	}
}

// relistedWithTombstones: every informer has relisted since markRelists and
// every listener has received a tombstone for each key deleted while down.
func relistedWithTombstones(d *Demo) bool {
	d.mu.Lock()
	before := d.facts.relistsBefore
	deleted := d.facts.deletedWhileDown
	d.mu.Unlock()
	var listeners []*local.Listener
	for _, e := range d.Informers() {
		listeners = append(listeners, d.Listeners(e.Name())...)
	}
	for _, e := range d.Informers() {
		if r := e.State().Reflector; r.Relists <= before[e.Name()] || r.ListInProgress {
			return false
		}
	}
	for _, l := range listeners {
		if !l.TombstonedAll(deleted) {
			return false
		}
	}
	// The figure the note points at: view 3's tombstone count, which the
	// processor updates once each OnDelete has returned.
	for _, e := range d.Informers() {
		for _, ls := range e.State().Listeners {
			if ls.Delivered.Tombstones < uint64(len(deleted)) {
				return false
			}
		}
	}
	return true
}

// tombstoneStatus counts the DeletedFinalStateUnknown deletes per listener.
func tombstoneStatus(d *Demo) []string {
	var parts []string
	for _, l := range d.Listeners(d.Informers()[0].Name()) {
		parts = append(parts, fmt.Sprintf("%s %d", l.Name(), l.Counts().Tombstones))
	}
	return []string{"DeletedFinalStateUnknown deletes: " + strings.Join(parts, " · ")}
}
