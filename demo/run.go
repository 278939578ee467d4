package demo

import (
	"context"
	"sync"
	"time"
)

// Run starts the informers and their listeners, the workload and the
// script, and blocks until ctx is done and every goroutine it started has
// ended. Stalled listeners are released when ctx ends. A Demo runs once.
func (d *Demo) Run(ctx context.Context) {
	if !d.started.CompareAndSwap(false, true) {
		return
	}
	d.mu.Lock()
	d.startedAt = time.Now()
	d.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { d.Source.Run(ctx) })
	wg.Go(func() {
		// Churn starts once every informer has synced, so informers of the
		// same resource all start from the same list.
		for _, e := range d.Informers() {
			if e.WaitSynced(ctx) != nil {
				return
			}
		}
		d.work.run(ctx)
	})
	wg.Go(func() { d.runScript(ctx) })
	wg.Wait()
}
