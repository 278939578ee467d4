package demo

import (
	"context"
	"fmt"

	"github.com/informtop/informtop/agent/source"
)

// Script actions: small, infallible helpers the scenario timelines call.

// pauseAll pauses or resumes popping on every informer on the script's
// behalf; while the user has paused it changes nothing (the user's pause
// wins; steps that pause or resume wait for userLetGo first).
func (d *Demo) pauseAll(paused bool) {
	if !d.SetPausedBy(paused, source.PausedByScenario) {
		d.Log("scenario " + d.cfg.Scenario + ": you paused processing, so the script leaves it paused; press space to let it go on")
	}
}

// stall stalls or releases one listener; a missing one is reported in the
// event log rather than stopping the script (the user may have removed it).
func (d *Demo) stall(informer, listener string, stalled bool) {
	if l := d.Listener(informer, listener); l != nil {
		l.SetStalled(stalled)
		return
	}
	d.LogError(fmt.Sprintf("scenario %s: no listener %q on informer %s to stall", d.cfg.Scenario, listener, informer))
}

// deleteWhileDown deletes n objects of an informer's resource, spread over
// its sorted keys, and remembers them as deleted while the watch was down.
func (d *Demo) deleteWhileDown(resource string, n int) []string {
	keys := d.cluster.Keys(resource)
	n = min(n, len(keys))
	var deleted []string
	for i := range n {
		key := keys[i*len(keys)/n]
		if _, err := d.cluster.Delete(resource, key); err != nil {
			d.LogError(fmt.Sprintf("scenario %s: delete %s: %v", d.cfg.Scenario, key, err))
			continue
		}
		deleted = append(deleted, key)
	}
	d.mu.Lock()
	d.facts.deletedWhileDown = deleted
	d.mu.Unlock()
	return deleted
}

// deletedWhileDown returns the keys of the last deleteWhileDown.
func (d *Demo) deletedWhileDown() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.facts.deletedWhileDown...)
}

// do adapts a context-free action to a step.
func do(f func(d *Demo)) func(context.Context, *Demo) {
	return func(_ context.Context, d *Demo) { f(d) }
}

// pauseQuiet holds the background workload, waits until every informer
// has what the server changed, then pauses processing: what queues while
// paused is the script's burst alone, so the Queue view shows its rows
// (at 80×24 too, where background rows queued first would fill it).
// resumeQuiet undoes both.
func pauseQuiet(ctx context.Context, d *Demo) {
	d.work.hold()
	if pollCtx(ctx, untilPoll, func() bool { return queuesDrained(d) && caughtUp(d) }) {
		d.pauseAll(true)
	}
}

func resumeQuiet(_ context.Context, d *Demo) {
	d.pauseAll(false)
	d.work.release()
}

// burst fires n updates at the workload's hot keys and remembers the
// server's resourceVersion after them, for burstQueued.
func (d *Demo) burst(n int) {
	d.work.burst(n)
	rv := d.cluster.ResourceVersion()
	d.mu.Lock()
	d.facts.burstRV = rv
	d.mu.Unlock()
}
