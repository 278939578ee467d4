package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
)

// Cut implements source.Cutter: the named informer's cache as one state
// (engine.Informer.Cut). An unknown informer is source.ErrUnknownInformer;
// one that has received nothing yet, source.ErrNothingReceived.
func (s *Source) Cut(_ context.Context, informer string) (verify.Cut, error) {
	e, err := s.lookup(informer)
	if err != nil {
		return verify.Cut{}, err
	}
	return CutInformer(e.inf)
}

// CutInformer cuts an engine informer's cache, in the model: the one
// place engine.ErrNothingReceived becomes source.ErrNothingReceived (the
// error is both), so a caller tells "not yet" from a failure without
// importing the engine.
func CutInformer(inf *engine.Informer) (verify.Cut, error) {
	c, err := inf.Cut()
	if errors.Is(err, engine.ErrNothingReceived) {
		return verify.Cut{}, fmt.Errorf("informer %s: %w", inf.Name(), nothingReceived{})
	}
	if err != nil {
		return verify.Cut{}, fmt.Errorf("informer %s: %w", inf.Name(), err)
	}
	return CutOf(c), nil
}

// nothingReceived is engine.ErrNothingReceived and source.ErrNothingReceived.
type nothingReceived struct{}

func (nothingReceived) Error() string { return source.ErrNothingReceived.Error() }
func (nothingReceived) Is(target error) bool {
	return target == source.ErrNothingReceived || target == engine.ErrNothingReceived
}
