package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// Resync periods of the resync scenario. client-go never resyncs more often
// than once a second, so these are real seconds whatever the time scale.
var (
	resyncFast = time.Second
	resyncSlow = 3 * time.Second
	resyncNone = time.Duration(0)
)

var resyncScenario = &scenario{
	name:    "resync",
	summary: "A short resync period: sync notifications reach only the listeners whose resync is due.",
	objects: 50,
	rate:    2,
	build:   buildResync,
}

func buildResync(cfg resolved) plan {
	p := podsOnly(cfg, []listenerPlan{
		{name: "resync-1s", delay: fastDelay, resync: &resyncFast},
		{name: "resync-3s", delay: fastDelay, resync: &resyncSlow},
		{name: "no-resync", delay: fastDelay, resync: &resyncNone},
	})
	p.informers[0].resync = resyncFast
	queueNote := "With RealFIFO a resync is a single SyncAll item; processing it replays every cached object to the due listeners."
	if cfg.Queue == source.DeltaFIFO {
		queueNote = "With DeltaFIFO a resync queues a Sync delta for every cached key that has nothing queued already (Queue view 2)."
	}
	p.loopFrom = 1
	p.status = syncStatus
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"Resync: every second the reflector asks whether any listener is due; if one is, the whole cache is replayed as syncs.",
			"Listeners view (3): resync-1s gets a sync for every pod each second, resync-3s every third second, no-resync never.",
		}},
		// The note waits for a sync to point at: resync periods are real
		// time, which a test's time scale does not shorten.
		{name: "what a sync is", after: 10 * time.Second, until: func(d *Demo) bool {
			for _, ls := range d.Informers()[0].State().Listeners {
				if ls.Delivered.Sync > 0 {
					return true
				}
			}
			return false
		}, note: []string{
			"A sync is an OnUpdate whose old and new objects have the same resourceVersion. The processor hands it only to listeners whose own period has elapsed.",
			"Events view (5): each Resync event, then the sync calls of the due listeners only.",
		}},
		{name: "queue", after: 10 * time.Second, note: []string{queueNote}},
		{name: "loop", after: 10 * time.Second},
	}
	return p
}

// syncStatus counts the sync notifications each listener received.
func syncStatus(d *Demo) []string {
	var parts []string
	for _, ls := range d.Informers()[0].State().Listeners {
		parts = append(parts, fmt.Sprintf("%s %s", ls.Name, humanize.Count(ls.Delivered.Sync)))
	}
	return []string{"syncs delivered: " + strings.Join(parts, " · ")}
}
