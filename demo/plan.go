package demo

import (
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// plan is what a scenario asks New to build: objects, informers, listeners,
// the background workload and the script.
type plan struct {
	populate  []population   // objects created before the informers start
	informers []informerPlan // in the order the UI lists them
	workload  workloadPlan
	script    []step
	// loopFrom is the step the script returns to after its last one;
	// -1 means the last note stays and the scenario settles.
	loopFrom int
	// status adds live lines under the current note; may be nil.
	status func(d *Demo) []string
	// server tunes the simulated API server for the scenario: its watch
	// cache's window, watcher buffers, bookmarks, dispatch budget. Seed
	// and WatchList come from the demo's configuration.
	server cluster.Options
}

type population struct {
	resource string
	count    int
}

type informerPlan struct {
	name      string
	resource  string
	queue     source.QueueKind
	resync    time.Duration // the informer's default handler resync period
	listeners []listenerPlan
	// selector narrows what the informer lists and watches.
	selector cluster.Selector
	// noBookmarks makes the informer's watches go without bookmarks, as a
	// client that does not ask for them (client-go always asks).
	noBookmarks bool
	// noUpkeep turns off the informer's once-a-second upkeep, whose memory
	// sampling reads cached objects on a goroutine of its own: a scenario
	// whose handler really writes to cached objects would race with it.
	noUpkeep bool
}

// Speeds of the standard listeners: fast does nothing, medium and slow
// pretend to work. With all of the default 20 changes/s on pods slow is busy
// about 40% of the time (steady spreads them over four resources), so its
// backlog flickers; above 50 pod changes/s it falls behind.
const (
	fastDelay   = 0
	mediumDelay = 2 * time.Millisecond
	slowDelay   = 20 * time.Millisecond
)

type listenerPlan struct {
	name  string
	delay time.Duration
	// resync, when set, is the period this handler asks for; otherwise it
	// takes the informer's default.
	resync *time.Duration
}

type workloadPlan struct {
	resources              []string
	create, update, delete int // relative weights
}

// workloadOptions configures the cluster's workload generator. Its own
// rate stays 0: the demo's driver paces it (see driver).
func (p plan) workloadOptions(cfg resolved) cluster.WorkloadOptions {
	largest := 0
	for _, pop := range p.populate {
		largest = max(largest, pop.count)
	}
	return cluster.WorkloadOptions{
		Resources:    p.workload.resources,
		Seed:         cfg.Seed,
		CreateWeight: p.workload.create,
		UpdateWeight: p.workload.update,
		DeleteWeight: p.workload.delete,
		// Keep the population near its start so a long run neither
		// empties nor floods the cache.
		MaxObjects: max(2*largest, 10),
	}
}

// standardListeners are the fast, medium and slow listeners most scenarios use.
func standardListeners() []listenerPlan {
	return []listenerPlan{
		{name: "fast", delay: fastDelay},
		{name: "medium", delay: mediumDelay},
		{name: "slow", delay: slowDelay},
	}
}

// podsOnly is the usual single-informer layout of a scenario.
func podsOnly(cfg resolved, listeners []listenerPlan) plan {
	return plan{
		populate:  []population{{resource: cluster.Pods, count: cfg.Objects}},
		informers: []informerPlan{{name: "pods", resource: cluster.Pods, queue: cfg.Queue, listeners: listeners}},
		workload:  workloadPlan{resources: []string{cluster.Pods}, create: 2, update: 6, delete: 2},
		loopFrom:  -1,
	}
}
