package grafana

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// workqueues is the row of the controllers' workqueues (client-go's
// util/workqueue), where handlers usually hand keys to workers.
func workqueues() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		graph("Workqueue depth",
			"Keys waiting for a worker. Growing: the workers are slower than the handlers feeding them, or stuck.",
			unitCount, query(sel(mWQDepth, workqueue), legendWorkqueue)),
		graph("Workqueue adds",
			"Keys added per second; a key already waiting is not counted again (the queue deduplicates).",
			unitPerSec, query(rate(mWQAdds, workqueue), legendWorkqueue)),
		graph("Workqueue retries",
			"Keys added back after a delay per second (AddRateLimited, AddAfter): reconciles that failed and are retried with backoff.",
			unitPerSec, query(rate(mWQRetries, workqueue), legendWorkqueue)),
		graph("Queue latency and work duration, max",
			"Longest a key waited before a worker took it, and longest a worker spent on one key.",
			unitSeconds,
			query(sel(mWQLatency, workqueue), legendWorkqueue+" waited"),
			query(sel(mWQWork, workqueue), legendWorkqueue+" worked")),
		withThresholds(graph("Unfinished work",
			"Seconds spent so far by work in progress that has not finished, and how long the longest-running item has been running: a worker stuck in one reconcile climbs here.",
			unitSeconds,
			query(sel(mWQUnfinish, workqueue), legendWorkqueue+" unfinished"),
			query(sel(mWQLongest, workqueue), legendWorkqueue+" longest")), step{stallSeconds, "red"}),
	}
}
