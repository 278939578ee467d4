package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Change is what Replace puts in place.
type Change struct {
	// Old names the informer replaced; "" adds the new one last.
	Old       string
	Spec      InformerSpec
	Listeners []ListenerSpec
	// Prepare, when set, is given the new informer before it runs (to set
	// its transform); its error stops the change.
	Prepare func(*Informer) error
}

// Replace puts the informer c.Spec describes, with its listeners, where
// the informer named c.Old was, and stops the old one. Unlike AddInformer it works while the source runs: the
// new informer starts at once and lists from scratch, as a restarted
// controller's would. It is how a cluster source changes what it watches
// (another namespace, another resource) without a restart.
func (s *Source) Replace(c Change) (*Informer, error) {
	spec, old := c.Spec, c.Old
	if spec.ListerWatcher == nil || spec.Name == "" {
		return nil, errors.New("an informer needs a name and a ListerWatcher")
	}
	e := &Informer{name: spec.Name, resource: spec.Resource, queue: spec.Queue, inf: s.build(spec),
		namespace: spec.Namespace, group: spec.Group, version: spec.Version}
	if c.Prepare != nil {
		if err := c.Prepare(e); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	infs := s.list()
	at := slices.IndexFunc(infs, func(x *Informer) bool { return x.name == old })
	if old != "" && at < 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("there is no informer named %q to replace", old)
	}
	if x := s.Informer(spec.Name); x != nil && x.name != old {
		s.mu.Unlock()
		return nil, fmt.Errorf("an informer named %q already exists", spec.Name)
	}
	for _, ls := range c.Listeners {
		if _, err := s.registerLocked(e, ls); err != nil {
			s.mu.Unlock()
			return nil, err
		}
	}
	next := slices.Clone(infs)
	var gone *Informer
	if at >= 0 {
		gone, next[at] = next[at], e
	} else {
		next = append(next, e)
	}
	// Paused before it starts, so it pops nothing the user did not step.
	if s.pausedNow() {
		e.inf.SetPaused(true)
	}
	s.setList(next)
	if s.running {
		s.startLocked(e)
	}
	s.mu.Unlock()
	if gone != nil {
		s.stopInformer(gone)
		s.Log(fmt.Sprintf("replaced informer %s: now watching %s", old, e.describe()))
	} else if s.Started() {
		s.Log("added informer " + e.describe())
	}
	return e, nil
}

// Remove stops the named informer and forgets it. Its goroutines end in
// the background (a callback in progress is let go first); Run waits for
// them.
func (s *Source) Remove(name string) error {
	s.mu.Lock()
	infs := s.list()
	at := slices.IndexFunc(infs, func(x *Informer) bool { return x.name == name })
	if at < 0 {
		s.mu.Unlock()
		return fmt.Errorf("there is no informer named %q", name)
	}
	e := infs[at]
	s.setList(slices.Delete(slices.Clone(infs), at, at+1))
	s.mu.Unlock()
	s.stopInformer(e)
	s.Log("removed informer " + name)
	return nil
}

// startLocked runs e under Run's context; s.mu is held and the source runs.
func (s *Source) startLocked(e *Informer) {
	ctx, cancel := context.WithCancel(s.runCtx)
	e.cancel = cancel
	s.runWG.Go(func() { e.inf.RunWithContext(ctx) })
}

// stopInformer ends e's run and lets its listeners go, so a stalled one
// cannot hold the informer's goroutines.
func (s *Source) stopInformer(e *Informer) {
	s.mu.Lock()
	cancel, les := e.cancel, e.listeners
	e.listeners = nil
	s.mu.Unlock()
	for _, le := range les {
		le.l.release()
		close(le.removed)
	}
	if cancel != nil {
		cancel()
	}
}

// pausedNow says whether someone has paused processing: an informer added
// then starts paused too. Called with s.mu held (mu before pauseMu; no
// path takes them the other way round).
func (s *Source) pausedNow() bool {
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	return s.pausedBy != ""
}

// describe says what the informer watches: "pods in shop".
func (e *Informer) describe() string {
	if e.namespace == "" {
		return e.resource
	}
	return e.resource + " in " + e.namespace
}
