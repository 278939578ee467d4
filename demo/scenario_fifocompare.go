package demo

import (
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// compareBurst is the burst the fifo-compare scenario queues while paused.
const compareBurst = 500

var fifoCompareScenario = &scenario{
	name:    "fifo-compare",
	summary: "The same workload through a DeltaFIFO informer and a RealFIFO informer, side by side.",
	objects: 300,
	rate:    defaultRate,
	build:   buildFIFOCompare,
}

func buildFIFOCompare(cfg resolved) plan {
	listeners := func() []listenerPlan {
		return []listenerPlan{{name: "fast", delay: fastDelay}, {name: "slow", delay: slowDelay}}
	}
	p := plan{
		populate: []population{{resource: cluster.Pods, count: cfg.Objects}},
		informers: []informerPlan{
			{name: "pods-deltafifo", resource: cluster.Pods, queue: source.DeltaFIFO, listeners: listeners()},
			{name: "pods-realfifo", resource: cluster.Pods, queue: source.RealFIFO, listeners: listeners()},
		},
		workload: workloadPlan{resources: []string{cluster.Pods}, create: 2, update: 6, delete: 2},
		loopFrom: 1,
		status:   listenersStatus,
	}
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"FIFO compare: the same pods flow through a DeltaFIFO and a RealFIFO informer (: switches between them). Their caches end up identical; their queues differ.",
			"The DeltaFIFO is the walk-throughs' classic queue; client-go v0.37's informers never use it (the InOrderInformers gate is GA and locked on): they queue in a RealFIFO.",
		}},
		{name: "pause", after: 8 * time.Second, until: userLetGo, do: pauseQuiet, note: []string{
			"Both informers are paused (as if processing were slow), so the burst that comes next piles up in their queues.",
			"Background changes are held until they resume, so what queues is the burst alone.",
		}},
		{name: "burst", after: time.Second, do: do(func(d *Demo) { d.burst(compareBurst) }), then: burstQueued, note: []string{
			"500 updates hit three hot pods. pods-deltafifo holds one row per pod with its deltas coalesced; pods-realfifo one row per event, 500.",
			"Queue view (2) on each informer: compare the depth and the rows; enter shows a row's deltas.",
		}},
		// If you paused, the script waits for you to resume.
		{name: "resume", after: 6 * time.Second, until: userLetGo, do: resumeQuiet, then: queuesDrained, note: []string{
			"Processing resumed and both queues have emptied: both hand every update to their listeners. Coalescing saves queue rows, not notifications.",
		}},
		{name: "drained", until: func(d *Demo) bool { return drained(d) && caughtUp(d) && sameDeliveries(d) }, settle: true, note: []string{
			"Both caches match the server, and each listener got the same notifications from both informers.",
		}},
		{name: "loop", after: 20 * time.Second},
	}
	return p
}
