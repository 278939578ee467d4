// Package polling is the loop a remote source polls with: ask now, then
// again after the wait each answer asks for, until the context ends.
package polling

import (
	"context"
	"time"
)

// Run calls next at once, then again after the duration each call
// returned, until ctx is done, and returns then. Calls never overlap, so
// a slow peer is never asked twice at once.
func Run(ctx context.Context, next func(context.Context) time.Duration) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(next(ctx))
	}
}
