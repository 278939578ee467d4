package local

import (
	"context"
	"fmt"
	"time"

	"github.com/informtop/informtop/engine"
)

// stepTimeout bounds how long Step waits for the popped item to be processed.
const stepTimeout = 5 * time.Second

// SetPaused stops or resumes popping from every informer's queue.
func (s *Source) SetPaused(paused bool) error {
	for _, e := range s.infs {
		e.inf.SetPaused(paused)
	}
	return nil
}

// Paused reports whether processing is paused on every informer.
func (s *Source) Paused() bool {
	for _, e := range s.infs {
		if !e.inf.Paused() {
			return false
		}
	}
	return len(s.infs) > 0
}

// Step pops exactly one item from the named informer's queue while paused.
func (s *Source) Step(informer string) (engine.StepResult, error) {
	e, err := s.lookup(informer)
	if err != nil {
		return engine.StepResult{}, err
	}
	ctx, cancel := context.WithTimeout(s.stopCtx, stepTimeout)
	defer cancel()
	return e.inf.Step(ctx)
}

// Resync forces a resync of the named informer's queue.
func (s *Source) Resync(informer string) error {
	e, err := s.lookup(informer)
	if err != nil {
		return err
	}
	return e.inf.Resync()
}

// ToggleStall stalls the named listener or lets it go on; it reports the
// new state.
func (s *Source) ToggleStall(informer, listener string) (bool, error) {
	if _, err := s.lookup(informer); err != nil {
		return false, err
	}
	l := s.Listener(informer, listener)
	if l == nil {
		return false, fmt.Errorf("informer %s has no listener named %q that informtop can stall (only simulated listeners can be)", informer, listener)
	}
	stalled := !l.Stalled()
	l.SetStalled(stalled)
	verb := "unstall"
	if stalled {
		verb = "stall"
	}
	s.Log(fmt.Sprintf("%s listener %s of %s", verb, listener, informer))
	return stalled, nil
}
