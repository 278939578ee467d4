package main

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// stallLookEvery is how often --once looks for a handler's new call while
// it waits: a call seen in progress is checked again when it turns
// --fail-on-stall old, so --fail-on-stall fires on time for any limit
// longer than this.
const stallLookEvery = 250 * time.Millisecond

// watchStalls looks at src while --once waits (for the sync, --duration, a
// scenario's script) and cancels the context it returns once a handler
// has been in one callback longer than limit, so --fail-on-stall fires
// limit after the call began, whatever --once was waiting for: a handler
// stuck in its initial list is what keeps the sync from coming at all.
// stop ends the watch and returns the sentences of the stall it found, if
// it found one. With limit 0 it watches nothing and returns ctx itself.
func watchStalls(ctx context.Context, src source.Source, limit time.Duration) (waiting context.Context, stop func() []string) {
	if limit <= 0 {
		return ctx, func() []string { return nil }
	}
	waiting, cancel := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		found []string // written by the watch before it cancels
	)
	wg.Go(func() {
		timer := time.NewTimer(0)
		defer timer.Stop()
		for {
			select {
			case <-waiting.Done():
				return
			case <-timer.C:
			}
			// A cursor past every event: only the snapshots are wanted.
			f := src.Pull(math.MaxUint64, 1)
			now := time.Now()
			if lines := stalledLonger(f, limit, now); len(lines) > 0 {
				found = lines
				cancel()
				return
			}
			timer.Reset(min(stallLookEvery, untilStalled(f, limit, now)))
		}
	})
	return waiting, func() []string {
		cancel()
		wg.Wait()
		return found
	}
}

// untilStalled is how long from now until the first call in progress in
// f has run longer than limit; a long time when none is in progress.
func untilStalled(f source.Frame, limit time.Duration, now time.Time) time.Duration {
	next := time.Duration(math.MaxInt64)
	for _, inf := range f.Snapshots {
		for _, l := range inf.Listeners {
			if l.InCallback == "" || l.InCallbackSince.IsZero() {
				continue
			}
			// StalledSince wants strictly longer than limit.
			next = min(next, l.InCallbackSince.Add(limit).Sub(now)+time.Millisecond)
		}
	}
	return max(next, 0)
}
