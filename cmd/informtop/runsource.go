package main

import (
	"context"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// stopGrace is how long informtop waits for a source to stop before it
// ends anyway. client-go's watch-list retry sleeps out its backoff (up to
// a minute) without looking at its context, so an informer backing off
// from an outage can outlive a quit, a --once's end or a ctrl+c by that
// much; the exit stops what is left.
const stopGrace = 2 * time.Second

// startSource runs src under a context of its own until stop is called:
// stop cancels it and waits for Run to return, at most stopGrace.
func startSource(ctx context.Context, src source.Source) (runCtx context.Context, stop func()) {
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { src.Run(runCtx) })
	return runCtx, func() {
		cancel()
		waitAtMost(&wg, stopGrace)
	}
}

// waitAtMost waits for wg, or for d to pass, whichever comes first.
func waitAtMost(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
