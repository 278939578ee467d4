package grafana

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// overview is the first row: counts that say whether anything is wrong,
// then every selected listener, the one hung longest first.
func overview() []cog.Builder[dashboard.Panel] {
	// orZero keeps a count at 0 instead of "No data" when nothing matches.
	orZero := func(expr string) string { return fmt.Sprintf("count(%s) or vector(0)", expr) }
	return []cog.Builder[dashboard.Panel]{
		single("Controllers", "Controller processes whose agent Prometheus scrapes, among those selected: one per cluster, job and instance.", unitCount,
			fmt.Sprintf("count(count by (cluster, job, instance) (%s))", sel(mInformerSynced, target))),
		single("Stalled listeners", fmt.Sprintf("Handlers in one callback for more than %d s: the handler is hung or very slow, and every notification for that registration waits behind it (client-go delivers one at a time per listener). The alert InformtopListenerStalled fires when this holds for 30 s.", stallSeconds), unitCount,
			orZero(fmt.Sprintf("%s > %d", sel(mInCallback, listener), stallSeconds)), step{1, "red"}),
		single("Informers not synced", "Informers whose initial list has not completed into the cache (HasSynced false): a controller waiting on WaitForCacheSync does no work.", unitCount,
			orZero(fmt.Sprintf("%s == 0", sel(mInformerSynced, informer))), step{1, "red"}),
		single("Silent watches", "Informers that heard nothing from the API server (no event, bookmark, list page or new watch) for longer than their watch is owed anything (10 min 15 s with a watch open, which the server must end at its timeout; 75 s without one): the watch may be hung while the cache goes stale.", unitCount,
			orZero(fmt.Sprintf("%s == 1", sel(mSilent, informer))), step{1, "orange"}),
		single("Backlog", fmt.Sprintf("Notifications waiting in all selected listeners' buffers (client-go's processorListener pendingNotifications, which grows without bound). client-go 1.36+ logs a slow handler past %d.", backlogWarn), unitCount,
			fmt.Sprintf("sum(%s) or vector(0)", sel(mPending, listener)), step{backlogWarn, "orange"}),
		single("Handler panics", "Handler calls that panicked in the selected time range.", unitCount,
			fmt.Sprintf("sum(increase(%s[$__range])) or vector(0)", sel(mPanics, listener)), step{1, "red"}),
		grid("Listeners, worst first",
			"Every selected handler registration, the longest callback in progress first. Frame is the function and line of your code a call running longer than 2 s is stuck in; click a header to sort by backlog instead.",
			[]string{
				sel(mInCallback, listener),
				sel(mPending, listener),
				sel(mOldest, listener),
				sel(mLSynced, listener),
			},
			[]column{
				{ref: "A", header: "In callback", unit: unitSeconds, steps: stallSteps},
				{ref: "B", header: "Backlog", unit: unitCount, steps: []step{{backlogWarn, "orange"}}},
				{ref: "C", header: "Oldest pending", unit: unitSeconds, steps: []step{{stallSeconds, "red"}}},
				{ref: "D", header: "Synced", unit: unitCount, mappings: flag("no", "yes", false)},
			},
			"group", "version"),
	}
}
