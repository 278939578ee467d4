package main

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/informtop/informtop/attach"
	"github.com/informtop/informtop/source"
)

// attachFromFleet is the fleet dashboard's Enter: attach to a process's
// agent, run until its stop is called or ctx (the dashboard's) ends, and
// counted in wg so the dashboard waits for it. The fleet's own source is
// not stopped: esc goes back to it.
func attachFromFleet(ctx context.Context, wg *sync.WaitGroup, token string) func(context.Context, source.Process) (source.Source, func(), error) {
	return func(_ context.Context, p source.Process) (source.Source, func(), error) {
		if p.Agent == "" {
			return nil, nil, errors.New("its target labels give no agent address: run informtop fleet with --agent-label LABEL")
		}
		a, err := attach.New(p.Agent, attach.Options{Token: token})
		if err != nil {
			return nil, nil, err
		}
		actx, stop := context.WithCancel(ctx)
		wg.Go(func() { a.Run(actx) })
		back := source.Decoration{Frame: func(f source.Frame) source.Frame {
			f.Notes = append(slices.Clip(f.Notes), "opened from the fleet: esc or :fleet goes back to it")
			return f
		}}
		return source.Decorate(a, back), stop, nil
	}
}
