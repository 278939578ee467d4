package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/informtop/informtop/engine"
)

// stepTimeout bounds how long Step waits for the popped item to be processed.
const stepTimeout = 5 * time.Second

// rateLadder are the workload rates AdjustRate moves between.
var rateLadder = []float64{0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

// SetPaused stops or resumes popping from every informer's queue.
func (d *Demo) SetPaused(paused bool) error {
	d.pauseAll(paused)
	return nil
}

// Paused reports whether processing is paused (on every informer).
func (d *Demo) Paused() bool {
	for _, e := range d.infs {
		if !e.inf.Paused() {
			return false
		}
	}
	return len(d.infs) > 0
}

// Step pops exactly one item from the named informer's queue while paused.
func (d *Demo) Step(informer string) (engine.StepResult, error) {
	e, err := d.lookup(informer)
	if err != nil {
		return engine.StepResult{}, err
	}
	ctx, cancel := context.WithTimeout(d.stopCtx, stepTimeout)
	defer cancel()
	return e.inf.Step(ctx)
}

// ToggleStall stalls the named listener or lets it go on; it reports the
// new state.
func (d *Demo) ToggleStall(informer, listener string) (bool, error) {
	l, err := d.lookupListener(informer, listener)
	if err != nil {
		return false, err
	}
	stalled := !l.Stalled()
	l.SetStalled(stalled)
	verb := "unstall"
	if stalled {
		verb = "stall"
	}
	d.control(fmt.Sprintf("%s listener %s of %s", verb, listener, informer))
	return stalled, nil
}

// DropWatch closes every open watch stream on the server.
func (d *Demo) DropWatch() error {
	d.cluster.DropWatches()
	d.control("fault: the server dropped every watch")
	return nil
}

// ExpireHistory compacts the server's history so the next watch gets 410 Gone.
func (d *Demo) ExpireHistory() error {
	d.cluster.ExpireHistory()
	d.control("fault: the server expired its history (the next watch gets 410 Gone)")
	return nil
}

// Resync forces a resync of the named informer's queue.
func (d *Demo) Resync(informer string) error {
	e, err := d.lookup(informer)
	if err != nil {
		return err
	}
	return e.inf.Resync()
}

// AdjustRate moves the workload rate one rung up (step > 0) or down
// (step < 0) the ladder 0, 1, 2, 5, 10, 20, 50 … changes per second.
func (d *Demo) AdjustRate(step int) (float64, error) {
	cur := d.work.Rate()
	next := cur
	switch {
	case step > 0:
		next = rateLadder[len(rateLadder)-1]
		for _, r := range rateLadder {
			if r > cur {
				next = r
				break
			}
		}
	case step < 0:
		next = 0
		for i := len(rateLadder) - 1; i >= 0; i-- {
			if rateLadder[i] < cur {
				next = rateLadder[i]
				break
			}
		}
	}
	d.SetRate(next)
	return next, nil
}

// Rate is the background workload in changes per second.
func (d *Demo) Rate() float64 { return d.work.Rate() }

// SetRate sets the background workload in changes per second; 0 stops it.
func (d *Demo) SetRate(perSecond float64) {
	d.work.SetRate(perSecond)
	d.control(fmt.Sprintf("workload rate %g changes/s", d.work.Rate()))
}

// SetServerAvailable makes the simulated API server refuse connections
// (false) or accept them again (true).
func (d *Demo) SetServerAvailable(up bool) {
	d.cluster.SetAvailable(up)
	if up {
		d.control("fault cleared: the API server accepts connections again")
	} else {
		d.control("fault: the API server refuses connections")
	}
}

// AddListener registers a new listener spending delay in each callback.
// Added to a running informer, it first receives OnAdd(obj, true) for every
// cached object.
func (d *Demo) AddListener(informer, name string, delay time.Duration) error {
	e, err := d.lookup(informer)
	if err != nil {
		return err
	}
	if name == "" {
		return errors.New("a listener needs a name")
	}
	d.mu.Lock()
	_, err = d.registerLocked(e, listenerPlan{name: name, delay: delay})
	d.mu.Unlock()
	if err != nil {
		return err
	}
	d.control(fmt.Sprintf("added listener %s to %s", name, informer))
	return nil
}

// RemoveListener unregisters the named listener; its backlog is dropped
// and a callback it is stuck in is released.
func (d *Demo) RemoveListener(informer, name string) error {
	e, err := d.lookup(informer)
	if err != nil {
		return err
	}
	d.mu.Lock()
	le := e.listener(name)
	if le != nil {
		for i, x := range e.listeners {
			if x == le {
				e.listeners = append(e.listeners[:i:i], e.listeners[i+1:]...)
				break
			}
		}
	}
	d.mu.Unlock()
	if le == nil {
		return fmt.Errorf("informer %s has no listener named %q", informer, name)
	}
	err = e.inf.RemoveEventHandler(le.reg)
	le.l.release()
	close(le.removed)
	if err != nil {
		return err
	}
	d.control(fmt.Sprintf("removed listener %s from %s", name, informer))
	return nil
}

func (d *Demo) lookup(informer string) (*informerEntry, error) {
	if e := d.entry(informer); e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("no informer named %q", informer)
}

func (d *Demo) lookupListener(informer, listener string) (*Listener, error) {
	if _, err := d.lookup(informer); err != nil {
		return nil, err
	}
	if l := d.Listener(informer, listener); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("informer %s has no listener named %q", informer, listener)
}
