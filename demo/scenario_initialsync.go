package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// Listener speeds for the initial sync: small enough that 50,000 initial
// OnAdds end in seconds, different enough that the registrations sync one
// after the other.
const (
	initialMediumDelay = 20 * time.Microsecond
	initialSlowDelay   = 100 * time.Microsecond
)

var initialSyncScenario = &scenario{
	name:    "initial-sync",
	summary: "A large paginated initial list: list progress, then when the informer and each handler registration reach HasSynced.",
	objects: 50000,
	rate:    5,
	build:   buildInitialSync,
	// Its lesson is the pages of a large LIST.
	pagedList: true,
}

func buildInitialSync(cfg resolved) plan {
	p := podsOnly(cfg, []listenerPlan{
		{name: "fast", delay: fastDelay},
		{name: "medium", delay: initialMediumDelay},
		{name: "slow", delay: initialSlowDelay},
	})
	n := humanize.Count(cfg.Objects)
	listNote := "Initial sync: the reflector LISTs " + n + " pods in pages of 500 (the Pipeline view (1) counts the pages)."
	if cfg.List == ListAuto {
		listNote += " This scenario's server has WatchList off to show the pages: client-go v0.37 against kube-apiserver v1.37 streams the initial list instead (run it with --watch-list on)."
	}
	if cfg.watchList {
		listNote = "Initial sync: the reflector streams " + n + " pods as a watch list (ADDED events, then a bookmark) instead of LIST pages."
	}
	syncNote := "Then the informer syncs; each handler registration syncs only once all of its initial-list OnAdd calls have returned."
	if cfg.Queue == source.DeltaFIFO {
		syncNote = "Then the informer syncs; each handler registration syncs once its initial-list OnAdd calls have returned. " +
			"DeltaFIFO (as in client-go) reports synced when it pops the last initial row, before processing it, so a listener that keeps up may sync just before its last OnAdd."
	}
	p.status = initialSyncStatus
	p.script = []step{
		{name: "listing", until: listStarted, note: []string{listNote, syncNote}},
		{name: "informer synced", until: informersSynced, tellList: true, note: []string{
			"The informer has synced: its queue handed over the whole initial list. The listeners may still be busy with their initial OnAdds.",
			"Listeners view (3): the synced column turns true one listener at a time, slowest last.",
		}},
		{name: "listeners synced", until: registrationsSynced, note: []string{
			"Every registration has synced. A controller that waits for its handler registration's HasSynced, not just the informer's, starts only now.",
		}},
		{name: "late listener", after: 10 * time.Second, do: do(func(d *Demo) {
			if _, err := d.AddListener("pods", local.ListenerSpec{Name: "late", Delay: d.scaled(initialMediumDelay)}); err != nil {
				d.LogError("scenario initial-sync: " + err.Error())
			}
		}), note: []string{
			"A listener added now first gets a synthetic OnAdd(obj, isInInitialList=true) for each of the " + n + " cached pods; its own HasSynced waits for them.",
		}},
		{name: "late listener synced", after: 2 * time.Second, until: registrationsSynced, note: []string{
			"The late listener has synced too. From here on it is quiet churn.",
		}},
	}
	return p
}

// initialSyncStatus shows list progress, then when each informer and each
// registration synced, measured from the start of the run.
func initialSyncStatus(d *Demo) []string {
	var lines []string
	for _, e := range d.Informers() {
		s := e.State()
		r := s.Reflector
		switch {
		case r.ListInProgress && r.ListStreamed:
			lines = append(lines, e.Name()+": streaming the initial list (WatchList)…")
		case r.ListInProgress:
			lines = append(lines, fmt.Sprintf("%s: listing… %s pods in %s so far", e.Name(), humanize.Count(r.LastListItems), humanize.Plural(r.ListPages, "page")))
		case r.Lists > 0 && r.ListStreamed:
			lines = append(lines, fmt.Sprintf("%s: %s pods streamed (WatchList), %s", e.Name(), humanize.Count(r.LastListItems), humanize.Tenths(r.LastListTime.Seconds())))
		case r.Lists > 0:
			lines = append(lines, fmt.Sprintf("%s: listed %s pods in %s, %s", e.Name(), humanize.Count(r.LastListItems), humanize.Plural(r.ListPages, "page"), humanize.Tenths(r.LastListTime.Seconds())))
		}
		var parts []string
		if s.Synced {
			parts = append(parts, "informer synced")
		} else {
			parts = append(parts, "informer not synced")
		}
		for _, l := range d.Listeners(e.Name()) {
			c := l.Counts()
			if c.Synced {
				parts = append(parts, fmt.Sprintf("%s synced at %s", l.Name(), humanize.Tenths(c.SyncedAt.Sub(d.startTime()).Seconds())))
			} else {
				parts = append(parts, fmt.Sprintf("%s %s initial adds", l.Name(), humanize.Count(c.InitialAdds)))
			}
		}
		lines = append(lines, strings.Join(parts, " · "))
	}
	return lines
}
