package demo

import (
	"time"

	"github.com/informtop/informtop/agent/source"
)

// burstSize is how many updates the burst scenario fires at once; it stays
// under the server's per-watch buffer so no stream is cut.
const burstSize = 1000

var burstScenario = &scenario{
	name:    "burst",
	summary: "A sudden burst of updates to a few hot pods: the queue fills and drains; DeltaFIFO coalesces per key.",
	objects: 300,
	rate:    defaultRate,
	build:   buildBurst,
}

func buildBurst(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	burstNote := []string{
		"1,000 updates to three hot pods arrived. RealFIFO keeps each event as its own row: the Queue view (2) holds 1,000 of them.",
		"Run with --queue DeltaFIFO to see the same burst coalesce into three rows.",
	}
	if cfg.Queue == source.DeltaFIFO {
		burstNote = []string{
			"1,000 updates to three hot pods arrived. DeltaFIFO keeps one row per key: in the Queue view (2) they take just three rows, each holding hundreds of Updated deltas.",
			"Select a row and press enter to see its coalesced deltas.",
		}
	}
	p.loopFrom = 1
	p.status = listenersStatus
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"Burst: steady churn for now. In a moment 1,000 updates hit three hot pods at once.",
			"Queue view (2) shows the queue filling and draining; Listeners view (3) the backlogs.",
		}},
		{name: "pause processing", after: 5 * time.Second, until: userLetGo, do: pauseQuiet, note: []string{
			"The script paused processing (as if handling were slow) so the burst has to wait in the queue where you can see it.",
			"Background changes are held until it resumes, so the queue holds the burst alone.",
		}},
		{name: "burst", after: time.Second, do: do(func(d *Demo) { d.burst(burstSize) }), then: burstQueued, note: burstNote},
		// If you paused, the script waits for you to resume.
		{name: "resume processing", after: 6 * time.Second, until: userLetGo, do: resumeQuiet, then: queuesDrained, note: []string{
			"Processing resumed and the queue emptied in a blink, yet every update still became its own notification.",
			"Listeners view (3): slow (20ms per call) now works through a backlog of about 1,000. Watch it drain.",
		}},
		{name: "drained", until: func(d *Demo) bool { return drained(d) && sameDeliveries(d) }, settle: true, note: []string{
			"Every listener has caught up and their delivered counts match: nothing was dropped on the way.",
		}},
		{name: "loop", after: 20 * time.Second},
	}
	return p
}
