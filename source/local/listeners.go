package local

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
)

// ListenerSpec describes a simulated listener.
type ListenerSpec struct {
	Name string
	// Delay is the time each callback takes.
	Delay time.Duration
	// Resync, when set, is the period this registration asks for;
	// otherwise it gets the informer's default.
	Resync *time.Duration
	// Cost, when set, is called at each callback for the time it takes,
	// instead of Delay: a replay reproduces recorded durations with it.
	Cost func() time.Duration
}

type listenerEntry struct {
	l       *Listener
	reg     cache.ResourceEventHandlerRegistration
	removed chan struct{}
}

// AddListener registers a simulated listener on the named informer. Added
// to a running informer, it first receives OnAdd(obj, true) for every
// cached object.
func (s *Source) AddListener(informer string, spec ListenerSpec) (*Listener, error) {
	e, err := s.lookup(informer)
	if err != nil {
		return nil, err
	}
	if spec.Name == "" {
		return nil, errors.New("a listener needs a name")
	}
	s.mu.Lock()
	l, err := s.registerLocked(e, spec)
	running := s.running
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if running {
		s.Log(fmt.Sprintf("added listener %s to %s", spec.Name, informer))
	}
	return l, nil
}

// registerLocked adds a listener to an informer; s.mu is held.
func (s *Source) registerLocked(e *Informer, spec ListenerSpec) (*Listener, error) {
	if e.listener(spec.Name) != nil {
		return nil, fmt.Errorf("informer %s already has a listener named %q", e.name, spec.Name)
	}
	l := NewListener(spec.Name, spec.Delay, s.stop)
	l.cost = spec.Cost
	s.observeLocked(e, l)
	l.lastAddMaySeeSync = e.queue == engine.DeltaFIFO
	reg, err := e.inf.AddNamedEventHandler(spec.Name, l, cache.HandlerOptions{ResyncPeriod: spec.Resync})
	if err != nil {
		return nil, err
	}
	l.setRegistration(reg)
	le := &listenerEntry{l: l, reg: reg, removed: make(chan struct{})}
	e.listeners = append(e.listeners, le)
	if s.running {
		s.watchSyncedLocked(le)
	}
	return l, nil
}

// RemoveListener unregisters the named listener; its backlog is dropped
// and a callback it is stuck in is released.
func (s *Source) RemoveListener(informer, name string) error {
	e, err := s.lookup(informer)
	if err != nil {
		return err
	}
	s.mu.Lock()
	le := e.listener(name)
	if le != nil {
		for i, x := range e.listeners {
			if x == le {
				e.listeners = append(e.listeners[:i:i], e.listeners[i+1:]...)
				break
			}
		}
	}
	s.mu.Unlock()
	if le == nil {
		return fmt.Errorf("informer %s has no listener named %q", informer, name)
	}
	err = e.inf.RemoveEventHandler(le.reg)
	le.l.release()
	close(le.removed)
	if err != nil {
		return err
	}
	s.Log(fmt.Sprintf("removed listener %s from %s", name, informer))
	return nil
}

// watchSyncedLocked records when a registration syncs; s.mu is held and
// the source is running, so syncWG cannot be waited on concurrently.
func (s *Source) watchSyncedLocked(le *listenerEntry) {
	s.syncWG.Add(1)
	go func() {
		defer s.syncWG.Done()
		select {
		case <-le.reg.HasSyncedChecker().Done():
			le.l.markSynced(time.Now())
		case <-le.removed:
		case <-s.stop:
		}
	}()
}

// Listener returns the named listener of the named informer, or nil.
func (s *Source) Listener(informer, name string) *Listener {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.Informer(informer); e != nil {
		if le := e.listener(name); le != nil {
			return le.l
		}
	}
	return nil
}

// Listeners returns the listeners of the named informer in registration order.
func (s *Source) Listeners(informer string) []*Listener {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.Informer(informer)
	if e == nil {
		return nil
	}
	out := make([]*Listener, len(e.listeners))
	for i, le := range e.listeners {
		out[i] = le.l
	}
	return out
}

// RegistrationsSynced reports whether every listener's registration has synced.
func (s *Source) RegistrationsSynced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.list() {
		for _, le := range e.listeners {
			if !le.reg.HasSynced() {
				return false
			}
		}
	}
	return true
}

// listener finds a listener by name; Source.mu is held.
func (i *Informer) listener(name string) *listenerEntry {
	for _, le := range i.listeners {
		if le.l.Name() == name {
			return le
		}
	}
	return nil
}
