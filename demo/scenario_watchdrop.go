package demo

import "time"

var watchDropScenario = &scenario{
	name:    "watch-drop",
	summary: "The watch stream breaks; the reflector backs off and re-watches from its last resourceVersion, without a relist.",
	objects: 300,
	rate:    defaultRate,
	build:   buildWatchDrop,
}

func buildWatchDrop(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	p.status = reflectorStatus
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			"Watch drop: after one LIST the reflector keeps a single WATCH open. Soon the server will break it.",
			"The status line shows the watch's age; the Events view (5) shows every reconnect.",
		}},
		{name: "drop watch", after: 6 * time.Second, until: watchesSettled, do: do(func(d *Demo) {
			d.markWatches()
			d.cluster.DropWatches()
		}), then: rewatched, note: []string{
			"The server closed the watch stream. The reflector re-watches at once from the last resourceVersion it saw: no relist, nothing missed.",
			"Events view (5): WatchClose, then WatchOpen with that resourceVersion. The LIST count stays at 1.",
		}},
		{name: "server down", after: 10 * time.Second, until: watchesSettled, do: do(func(d *Demo) { d.cluster.SetAvailable(false) }), then: watchesDown, note: []string{
			"The API server now refuses connections. Every re-watch fails and the reflector backs off (0.8s, 1.6s, 3.2s… with jitter) instead of relisting.",
			"Events view (5) shows the refused WATCH calls. The cache keeps serving the last state it knew.",
		}},
		{name: "server up", after: 3 * time.Second, do: do(func(d *Demo) { d.cluster.SetAvailable(true) }), note: []string{
			"The server is back. At its next retry the reflector re-opens the watch from its last resourceVersion.",
		}},
		{name: "recovered", until: watchesSettled, note: []string{
			"The watch is up again. The changes made while it was down arrived as ordinary watch events, replayed from the server's history: still no relist.",
		}},
		// No loop: the backoff grows with every outage (see expired).
		{name: "done", after: 20 * time.Second, note: []string{
			"That was the watch-drop scenario; the churn goes on. Press w to drop the watch yourself and follow the reconnect in the Events view (5).",
		}},
	}
	return p
}
