package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
)

// Run starts the workload, the informers, their listeners and the script,
// and blocks until ctx is done and every goroutine it started has ended.
// Stalled listeners are released when ctx ends. A Demo runs once.
func (d *Demo) Run(ctx context.Context) {
	if !d.started.CompareAndSwap(false, true) {
		return
	}
	d.mu.Lock()
	d.running = true
	d.startedAt = time.Now()
	for _, e := range d.infs {
		for _, le := range e.listeners {
			d.watchSyncedLocked(le)
		}
	}
	d.mu.Unlock()

	var wg sync.WaitGroup
	for _, e := range d.infs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.inf.RunWithContext(ctx)
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		// Churn starts once every informer has synced, so informers of the
		// same resource all start from the same list.
		for _, e := range d.infs {
			if waitDone(ctx, e.inf.HasSyncedChecker(), e.name) != nil {
				return
			}
		}
		d.work.run(ctx)
	}()
	go func() {
		defer wg.Done()
		d.runScript(ctx)
	}()

	<-ctx.Done()
	d.mu.Lock()
	d.running = false
	d.mu.Unlock()
	// Release stalled and sleeping handlers first: the informers wait for
	// the callbacks in progress before they return.
	close(d.stop)
	d.stopFn()
	wg.Wait()
	d.syncWG.Wait()
}

// WaitSynced waits until every informer and every handler registration
// has synced, or ctx ends.
func (d *Demo) WaitSynced(ctx context.Context) error {
	for _, e := range d.infs {
		if err := waitDone(ctx, e.inf.HasSyncedChecker(), "informer "+e.name); err != nil {
			return err
		}
	}
	d.mu.Lock()
	var regs []*listenerEntry
	for _, e := range d.infs {
		regs = append(regs, e.listeners...)
	}
	d.mu.Unlock()
	for _, le := range regs {
		if err := waitDone(ctx, le.reg.HasSyncedChecker(), "listener "+le.l.Name()); err != nil {
			return err
		}
	}
	return nil
}

func waitDone(ctx context.Context, c cache.DoneChecker, what string) error {
	select {
	case <-c.Done():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s has not synced: %w", what, ctx.Err())
	}
}
