package demo

import "time"

var stalledScenario = &scenario{
	name:    "stalled-listener",
	summary: "One handler blocks: its backlog grows while the others stay current; then it resumes and drains.",
	objects: 300,
	rate:    defaultRate,
	build:   buildStalled,
}

func buildStalled(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	p.loopFrom = 1
	p.status = listenersStatus
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"Stalled listener: three listeners share one informer. In a moment slow's handler will hang.",
			"Keep the Listeners view (3) open.",
		}},
		// Stall only once slow's registration has synced, so its backlog
		// holds changes, not the initial list.
		{name: "stall slow", after: 5 * time.Second, until: registrationsSynced,
			do:   do(func(d *Demo) { d.stall("pods", "slow", true) }),
			then: func(d *Demo) bool { return inCallback(d, "pods", "slow") }, note: []string{
				"The slow listener is stalled inside its callback. Watch its backlog climb on the Listeners view (3) while fast and medium stay at 0.",
				"The queue and the other listeners carry on: every listener has its own unbounded buffer, so one stuck handler never blocks the rest.",
			}},
		{name: "resume slow", after: 15 * time.Second, do: do(func(d *Demo) { d.stall("pods", "slow", false) }), note: []string{
			"slow's callback returned. It now works through its backlog in order, at 20ms per notification.",
			"Nothing was lost: once it drains, its delivered count equals the others'.",
		}},
		{name: "drained", until: func(d *Demo) bool { return drained(d) && sameDeliveries(d) }, settle: true, note: []string{
			"slow has caught up: pending 0 and the same delivered count as fast and medium.",
		}},
		{name: "loop", after: 15 * time.Second},
	}
	return p
}
