package grafana

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// informers is the row of each informer's reflector and cache: synced,
// hearing from the server, how big, and how its lists and watches go.
func informers() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		grid("Informers",
			"Every selected informer, those not synced first: synced is HasSynced (the initial list is in the cache); silent means no event, bookmark, list page or new watch for longer than the watch is owed anything (10 min 15 s open, 75 s without a watch); quiet is the seconds since the server last said anything; objects are the cache's.",
			[]string{
				sel(mInformerSynced, informer),
				sel(mSilent, informer),
				sel(mQuiet, informer),
				sel(mStoreObjects, informer),
			},
			[]column{
				{ref: "A", header: "Synced", unit: unitCount, mappings: flag("no", "yes", false), ascending: true},
				{ref: "B", header: "Silent", unit: unitCount, mappings: flag("no", "yes", true)},
				{ref: "C", header: "Quiet", unit: unitSeconds},
				{ref: "D", header: "Objects", unit: unitCount},
			}),
		graph("Quiet",
			"Seconds since the informer last heard from the API server. A healthy watch resets it with every event or bookmark; a sawtooth that keeps climbing is a watch gone silent.",
			unitSeconds, query(sel(mQuiet, informer), legendInformer)),
		graph("Objects in cache",
			"Objects in the informer's store (indexer): what a lister returns.",
			unitCount, query(sel(mStoreObjects, informer), legendInformer)),
		graph("Lists, relists and watches",
			"Per second: full LISTs the reflector started (retries included), relists (a LIST after a complete one: after a 410 Gone or a broken watch), and WATCH streams opened. Relists that keep coming are a relist loop, each one a full LIST on the API server.",
			unitPerSec,
			query(rate(mLists, informer), legendInformer+" lists"),
			query(rate(mRelists, informer), legendInformer+" relists"),
			query(rate(mWatches, informer), legendInformer+" watches")),
		graph("List pages",
			"LIST responses received per second; a paginated list (limit/continue) takes several.",
			unitPerSec, query(rate(mListPages, informer), legendInformer)),
		withThresholds(graph("Reflector errors",
			"Failed LIST and WATCH calls and other reflector failures per second; the reflector backs off and retries, and the informer stays unsynced or stale meanwhile.",
			unitPerSec, query(rate(mErrors, informer), legendInformer)), step{0.01, "red"}),
	}
}

// queues is how fast the handlers drain the informer's queue. The queue
// itself is client-go's own: the agent sees what enters it (the watch) and
// what leaves it (the handlers), not its rows.
func queues() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		graph("Handler calls per second",
			"Notifications each listener finished per second, all types together: the controller's throughput per registration.",
			unitPerSec, query(fmt.Sprintf("sum by (cluster, job, instance, name, listener) (%s)", rate(mDelivered, listener)), legendListener)),
	}
}
