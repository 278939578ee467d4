package local

import (
	"context"
	"fmt"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// stepTimeout bounds how long Step waits for the popped item to be processed.
const stepTimeout = 5 * time.Second

// SetPaused stops or resumes popping from every informer's queue on the
// user's behalf.
func (s *Source) SetPaused(paused bool) error {
	s.SetPausedBy(paused, source.PausedByYou)
	return nil
}

// SetPausedBy stops or resumes popping from every informer's queue and
// remembers who paused, for the frames' PausedBy. The user's pause wins:
// while the user has processing paused, anyone else's pause or resume
// changes nothing and SetPausedBy reports false.
func (s *Source) SetPausedBy(paused bool, by source.Pauser) bool {
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	if by != source.PausedByYou && s.pausedBy == source.PausedByYou && s.Paused() {
		return false
	}
	if paused {
		s.pausedBy = by
	} else {
		s.pausedBy = ""
	}
	for _, e := range s.list() {
		e.inf.SetPaused(paused)
	}
	return true
}

// PausedBy says who paused processing; "" while it runs.
func (s *Source) PausedBy() source.Pauser {
	s.pauseMu.Lock()
	by := s.pausedBy
	s.pauseMu.Unlock()
	if !s.Paused() {
		return ""
	}
	return by
}

// Paused reports whether processing is paused on every informer.
func (s *Source) Paused() bool {
	infs := s.list()
	for _, e := range infs {
		if !e.inf.Paused() {
			return false
		}
	}
	return len(infs) > 0
}

// Step pops exactly one item from the named informer's queue while paused.
func (s *Source) Step(informer string) (source.StepResult, error) {
	e, err := s.lookup(informer)
	if err != nil {
		return source.StepResult{}, err
	}
	ctx, cancel := context.WithTimeout(s.stopCtx, stepTimeout)
	defer cancel()
	r, err := e.inf.Step(ctx)
	return r, err
}

// StepBatch pops a batch from the named informer's queue while paused, as
// client-go's batched RealFIFO pop does; one key on a DeltaFIFO.
func (s *Source) StepBatch(informer string) (source.StepResult, error) {
	e, err := s.lookup(informer)
	if err != nil {
		return source.StepResult{}, err
	}
	ctx, cancel := context.WithTimeout(s.stopCtx, stepTimeout)
	defer cancel()
	r, err := e.inf.StepBatch(ctx)
	return r, err
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
