package demo

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
)

// registerLocked adds a listener to an informer; d.mu is held.
func (d *Demo) registerLocked(e *informerEntry, lp listenerPlan) (*Listener, error) {
	for _, le := range e.listeners {
		if le.l.Name() == lp.name {
			return nil, fmt.Errorf("informer %s already has a listener named %q", e.name, lp.name)
		}
	}
	l := NewListener(lp.name, lp.delay, d.stop)
	l.lastAddMaySeeSync = e.queue == engine.DeltaFIFO
	reg, err := e.inf.AddNamedEventHandler(lp.name, l, cache.HandlerOptions{ResyncPeriod: lp.resync})
	if err != nil {
		return nil, err
	}
	l.setRegistration(reg)
	le := &listenerEntry{l: l, reg: reg, removed: make(chan struct{})}
	e.listeners = append(e.listeners, le)
	if d.running {
		d.watchSyncedLocked(le)
	}
	return l, nil
}

// watchSyncedLocked records when a registration syncs; d.mu is held and
// the demo is running, so syncWG cannot be waited on concurrently.
func (d *Demo) watchSyncedLocked(le *listenerEntry) {
	d.syncWG.Add(1)
	go func() {
		defer d.syncWG.Done()
		select {
		case <-le.reg.HasSyncedChecker().Done():
			le.l.markSynced(time.Now())
		case <-le.removed:
		case <-d.stop:
		}
	}()
}

// Informers returns the demo's informers in display order.
func (d *Demo) Informers() []*engine.Informer {
	out := make([]*engine.Informer, len(d.infs))
	for i, e := range d.infs {
		out[i] = e.inf
	}
	return out
}

// Cluster returns the simulated API server.
func (d *Demo) Cluster() *cluster.Cluster { return d.cluster }

// Scenario returns the name of the scenario being run.
func (d *Demo) Scenario() string { return d.cfg.Scenario }

// Listener returns the named listener of the named informer, or nil.
func (d *Demo) Listener(informer, name string) *Listener {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e := d.entry(informer); e != nil {
		if le := e.listener(name); le != nil {
			return le.l
		}
	}
	return nil
}

// Listeners returns the listeners of the named informer in registration order.
func (d *Demo) Listeners(informer string) []*Listener {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.entry(informer)
	if e == nil {
		return nil
	}
	out := make([]*Listener, len(e.listeners))
	for i, le := range e.listeners {
		out[i] = le.l
	}
	return out
}

// entry finds an informer by name; infs never changes, so no lock is needed.
func (d *Demo) entry(name string) *informerEntry {
	for _, e := range d.infs {
		if e.name == name {
			return e
		}
	}
	return nil
}

// listener finds a listener by name; Demo.mu is held.
func (e *informerEntry) listener(name string) *listenerEntry {
	for _, le := range e.listeners {
		if le.l.Name() == name {
			return le
		}
	}
	return nil
}

func (d *Demo) setNote(lines []string) {
	d.mu.Lock()
	d.notes = lines
	d.mu.Unlock()
}

// startTime is when Run started; zero before.
func (d *Demo) startTime() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.startedAt
}
