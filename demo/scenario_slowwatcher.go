package demo

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/demo/cluster"
)

// The slow-watcher scenario's server: a small buffer per watch and a window
// that holds the first burst but not the second.
const (
	slowWatchBuffer = 20
	slowWindow      = 150
	// slowFirstBurst overfills the stalled client's buffer (it takes one
	// event out and the dispatcher blocks on the next) yet stays well
	// inside the window.
	slowFirstBurst = slowWatchBuffer + 10
	// slowDeletes are deleted at the start of the second stall; the client
	// never sees their DELETED events.
	slowDeletes = 3
	// slowSecondBurst is twice the window: whenever the client re-watches
	// during it, the rest is more than its buffer holds, so it is cut again
	// until the window has moved past it.
	slowSecondBurst = 2 * slowWindow
)

// Not scaled by TimeScale: client-go takes a watch that ends within a
// second without an event for a failure and relists, so the budget stays
// above a second; the stall outlasts the budget so the client takes no
// event out of its buffer before the watch cache gives up on it.
const (
	slowBudget = 1500 * time.Millisecond
	slowStall  = slowBudget + time.Second
)

var slowWatcherScenario = &scenario{
	name:    "slow-watcher",
	summary: "A client that stops reading loses its watch; it re-watches without a relist while the watch cache's window still covers it, else 410 and a relist.",
	objects: 300,
	rate:    defaultRate,
	build:   buildSlowWatcher,
}

// slowFacts is what the slow-watcher script remembers between steps; the
// script's goroutine writes it, tests and status lines read it.
type slowFacts struct {
	mu          sync.Mutex
	slowBefore  uint64 // the server's count of terminated watches when a stall began
	stalledAtRV uint64 // the client's resourceVersion when the first stall began
}

func (f *slowFacts) mark(d *Demo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slowBefore = d.cluster.Stats().WatchesSlow
	f.stalledAtRV = informerRV(d, "pods")
}

func (f *slowFacts) get() (slowBefore, stalledAtRV uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slowBefore, f.stalledAtRV
}

// terminated: the watch cache has terminated a watch since the stall began.
func (f *slowFacts) terminated(d *Demo) bool {
	before, _ := f.get()
	return d.cluster.Stats().WatchesSlow > before
}

// stallClient makes the pods client stop reading for slowStall per event.
func stallClient(d *Demo, stalled bool) {
	delay := time.Duration(0)
	if stalled {
		delay = slowStall
	}
	if err := d.cluster.SetClientDelay(cluster.Pods, delay); err != nil {
		d.LogError(fmt.Sprintf("scenario %s: %v", d.cfg.Scenario, err))
	}
}

func buildSlowWatcher(cfg resolved) plan {
	p := podsOnly(cfg, standardListeners())
	p.server = cluster.Options{HistorySize: slowWindow, WatchBuffer: slowWatchBuffer, DispatchBudget: slowBudget}
	f := &slowFacts{}
	p.status = func(d *Demo) []string { return append([]string{windowStatus(d, cluster.Pods)}, clientStatus(d)...) }
	p.script = []step{
		{name: "intro", until: informersSynced, tellList: true, note: []string{
			fmt.Sprintf("Slow watcher: the API server keeps a buffer of %d events for each watch and a window of the last %d pod events. In a moment this client stops reading while a burst arrives.", slowWatchBuffer, slowWindow),
			"Pipeline view (1) shows the server side: the watcher's buffer, the watch cache's window, terminated watchers.",
		}},
		{name: "quiesce", after: 5 * time.Second, do: do(func(d *Demo) { d.work.hold() }), note: []string{
			"The workload pauses so that every event on the way below is the script's own.",
		}},
		{name: "stall", until: func(d *Demo) bool { return caughtUp(d) && watchesSettled(d) }, do: do(func(d *Demo) {
			f.mark(d)
			d.markRelists()
			d.markWatches()
			stallClient(d, true)
			d.burst(slowFirstBurst)
		}), then: f.terminated, note: []string{
			fmt.Sprintf("The client stopped reading (%s per event) and %d updates arrived. Its buffer filled (%d/%d), the watch cache waited its budget of %s for room, then terminated the watch: see terminated watchers in the Pipeline view (1).",
				humanize.Tenths(slowStall.Seconds()), slowFirstBurst, slowWatchBuffer, slowWatchBuffer, humanize.Tenths(slowBudget.Seconds())),
			"kube-apiserver does the same so that one slow client cannot hold up every other watcher of the resource; its budget is about 0.1s, the demo's longer so you can see the full buffer.",
		}},
		{name: "recovered", do: do(func(d *Demo) { stallClient(d, false) }), then: func(d *Demo) bool {
			return rewatched(d) && informerSettled(d, "pods", d.relistsBefore("pods")) && caughtUp(d)
		}, note: nil},
		{name: "recovered note", do: do(func(d *Demo) {
			_, rv := f.get()
			w := d.watchWindow(cluster.Pods)
			d.setNote([]string{
				fmt.Sprintf("The client reads again. Its reflector re-watched from resourceVersion %d, the last it had seen; the window (RV %d–%d) still holds every event after it, so the burst was replayed: no relist.", rv, w.OldestRV, w.NewestRV),
				"Events view (5): WatchClose, then WatchOpen from that resourceVersion. The LIST count stays at 1.",
			})
		})},
		{name: "stall again", after: 5 * time.Second, until: func(d *Demo) bool { return caughtUp(d) && watchesSettled(d) }, do: do(func(d *Demo) {
			f.mark(d)
			d.markRelists()
			stallClient(d, true)
			d.deleteWhileDown(cluster.Pods, slowDeletes)
			d.burst(slowSecondBurst)
		}), note: []string{
			fmt.Sprintf("The client stops reading again. This time %d pods are deleted, then %d updates follow: twice what the window holds.", slowDeletes, slowSecondBurst),
		}},
		// The note waits until the window has really moved past the
		// client and every write has reached the watch cache.
		{name: "window moved", until: func(d *Demo) bool {
			return f.terminated(d) && d.pathIdle(cluster.Pods) && outsideWindow(d, "pods")
		}, do: do(func(d *Demo) {
			w := d.watchWindow(cluster.Pods)
			d.setNote([]string{
				fmt.Sprintf("The watch cache terminated the stalled watch again while the burst went on (terminated watchers: %d). Its window now starts at RV %d, past RV %d where the client stands: the events it missed are gone from the watch cache.",
					d.cluster.Stats().WatchesSlow, w.OldestRV, informerRV(d, "pods")),
			})
		})},
		// The workload stays held until the relist: anything deleted before
		// it would be missed as well and blur the lesson.
		{name: "relisted", do: do(func(d *Demo) { stallClient(d, false) }), then: func(d *Demo) bool {
			return relistedWithTombstones(d) && caughtUp(d)
		}, note: nil},
		{name: "relisted note", do: do(func(d *Demo) {
			d.work.release()
			d.setNote([]string{
				"The client reads again. Its re-watch got 410 Gone (too old resourceVersion), so the reflector listed again: Events view (5).",
				fmt.Sprintf("The relist found %s gone: every listener got OnDelete with a DeletedFinalStateUnknown for them, as their DELETED events were never read (Listeners view 3).", strings.Join(d.deletedWhileDown(), ", ")),
			})
		})},
		{name: "done", after: 20 * time.Second, note: []string{
			"That was the slow-watcher scenario; the churn goes on. A slow client loses its watch, not its data, as long as the window still covers it.",
		}},
	}
	return p
}
