package demo

import (
	"time"

	"github.com/informtop/informtop/demo/cluster"
)

// steady is the default: moderate churn over every resource, three
// listeners of different speeds on pods, and a looping tour of the views.
var steadyScenario = &scenario{
	name:    "steady",
	summary: "Moderate churn; three listeners on pods (fast, medium, slow). The default.",
	objects: 300,
	rate:    defaultRate,
	build:   buildSteady,
}

func buildSteady(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	// The other kinds give the informer switcher and the Store view (with
	// redacted Secret data) something to show.
	for _, res := range []string{cluster.ConfigMaps, cluster.Deployments, cluster.Secrets} {
		p.populate = append(p.populate, population{resource: res, count: max(cfg.Objects/5, 1)})
		p.informers = append(p.informers, informerPlan{
			name: res, resource: res, queue: cfg.Queue,
			listeners: []listenerPlan{{name: "fast", delay: fastDelay}},
		})
		p.workload.resources = append(p.workload.resources, res)
	}
	p.loopFrom = 0
	p.status = listenersStatus
	p.script = []step{
		{name: "tour: pipeline", until: informersSynced, tellList: true, note: []string{
			"Steady churn: objects change all the time and flow reflector → queue → indexer → listeners.",
			"Pipeline view (1): follow the counts hop by hop. The queue stays near empty because processing keeps up.",
		}},
		{name: "tour: listeners", after: 15 * time.Second, note: []string{
			"Listeners view (3): fast, medium and slow get the same notifications, in the same order.",
			"slow spends 20ms in every callback, so its backlog flickers. Press + to raise the rate and watch it fall behind.",
		}},
		{name: "tour: store", after: 15 * time.Second, note: []string{
			"Store view (4): the informer's cache. Search it with /, open an object for its YAML and index entries.",
			"Press : to switch informers: configmaps, deployments and secrets are cached too (Secret data is redacted).",
		}},
		{name: "tour: faults", after: 15 * time.Second, note: []string{
			"Try the fault keys: w drops the watch, x expires the history, s stalls the selected listener. (r resyncs only informers with a resync period: see the resync scenario.)",
			"Events view (5) narrates each one: WatchClose and WatchOpen, the Relist, a Stalled call; the Listeners view (3) counts the DeletedFinalStateUnknown deletes (TOMB).",
		}},
		{name: "loop", after: 15 * time.Second},
	}
	return p
}
