package source

import "time"

// Workqueue is one client-go workqueue of a controller, as its
// workqueue.MetricsProvider saw it: the stage after the listeners, where a
// handler's key waits for a worker. Sources that cannot see workqueues
// (the demo, a cluster) report none.
type Workqueue struct {
	Name string `json:"name"`
	// Depth is how many keys wait now.
	Depth int64 `json:"depth"`
	// Adds and Retries count every Add and every AddRateLimited since start.
	Adds    uint64 `json:"adds"`
	Retries uint64 `json:"retries"`
	// QueueLatency is how long keys waited before a worker took them:
	// the mean and the largest observed.
	QueueLatencyMean time.Duration `json:"queueLatencyMean"`
	QueueLatencyMax  time.Duration `json:"queueLatencyMax"`
	// WorkDuration is how long workers spent on a key: mean and largest.
	WorkDurationMean time.Duration `json:"workDurationMean"`
	WorkDurationMax  time.Duration `json:"workDurationMax"`
	// UnfinishedWork is the time spent by work in progress that has not
	// finished; LongestRunning is the longest such work item's time.
	UnfinishedWork time.Duration `json:"unfinishedWork"`
	LongestRunning time.Duration `json:"longestRunning"`
}
