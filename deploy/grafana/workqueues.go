package grafana

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// either is metric's series of the agent's provider, or of client-go's own
// workqueue metrics (controller-runtime's, kube-controller-manager's), as
// PromQL's or keeps both: a queue reports through one provider only.
func either(f func(metric, matchers string) string, metric, matchers string) string {
	return fmt.Sprintf("%s or %s", f(metric, matchers), f(clientGoWorkqueue(metric), matchers))
}

// quantile is a duration histogram's q-quantile per workqueue of each
// process, over Grafana's rate interval, from either provider's buckets.
func quantile(q float64, metric string) string {
	bucket := func(m, matchers string) string { return rate(m+"_bucket", matchers) }
	return fmt.Sprintf("histogram_quantile(%g, sum by (cluster, job, instance, name, le) (%s))", q, either(bucket, metric, workqueue))
}

// workqueues is the row of the controllers' workqueues (client-go's
// util/workqueue), where handlers usually hand keys to workers: the
// agent's informtop_workqueue_* and, for controllers that export them
// themselves, client-go's workqueue_*.
func workqueues() []cog.Builder[dashboard.Panel] {
	return []cog.Builder[dashboard.Panel]{
		graph("Workqueue depth",
			"Keys waiting for a worker. Growing: the workers are slower than the handlers feeding them, or stuck.",
			unitCount, query(either(sel, mWQDepth, workqueue), legendWorkqueue)),
		graph("Workqueue adds",
			"Keys added per second; a key already waiting is not counted again (the queue deduplicates).",
			unitPerSec, query(either(rate, mWQAdds, workqueue), legendWorkqueue)),
		graph("Workqueue retries",
			"Keys added back after a delay per second (AddRateLimited, AddAfter): reconciles that failed and are retried with backoff.",
			unitPerSec, query(either(rate, mWQRetries, workqueue), legendWorkqueue)),
		graph("Queue duration, p50 and p99",
			"How long keys waited before a worker took them, over the rate interval: the median and the 99th percentile, from the histogram's buckets. The agent's and client-go's go from 10 ns to 10 s, so a wait past 10 s reads as 10 s; controller-runtime's own go to 1000 s.",
			unitSeconds,
			query(quantile(0.5, mWQQueueDur), legendWorkqueue+" p50"),
			query(quantile(0.99, mWQQueueDur), legendWorkqueue+" p99")),
		graph("Work duration, p50 and p99",
			"How long a worker spent on one key (a reconcile), over the rate interval: the median and the 99th percentile, from the histogram's buckets. The agent's and client-go's go from 10 ns to 10 s, so a reconcile past 10 s reads as 10 s; controller-runtime's own go to 1000 s.",
			unitSeconds,
			query(quantile(0.5, mWQWorkDur), legendWorkqueue+" p50"),
			query(quantile(0.99, mWQWorkDur), legendWorkqueue+" p99")),
		withThresholds(graph("Unfinished work",
			"Seconds spent so far by work in progress that has not finished, and how long the longest-running item has been running: a worker stuck in one reconcile climbs here.",
			unitSeconds,
			query(either(sel, mWQUnfinish, workqueue), legendWorkqueue+" unfinished"),
			query(either(sel, mWQLongest, workqueue), legendWorkqueue+" longest")), step{stallSeconds, "red"}),
	}
}
