package local

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Run starts every informer and blocks until ctx is done and every
// goroutine it started has ended. Stalled and sleeping listeners are
// released when ctx ends. A Source runs once.
func (s *Source) Run(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	var wg sync.WaitGroup
	s.mu.Lock()
	s.running, s.runCtx, s.runWG = true, ctx, &wg
	for _, e := range s.list() {
		for _, le := range e.listeners {
			s.watchSyncedLocked(le)
		}
		s.startLocked(e)
	}
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	s.running = false
	s.mu.Unlock()
	// Release stalled and sleeping handlers first: the informers wait for
	// the callbacks in progress before they return.
	close(s.stop)
	s.stopFn()
	wg.Wait()
	s.syncWG.Wait()
}

// Started reports whether Run has been called.
func (s *Source) Started() bool { return s.started.Load() }

// WaitSynced waits until every informer and every handler registration
// has synced, or ctx ends.
func (s *Source) WaitSynced(ctx context.Context) error { return s.WaitSyncedExcept(ctx, nil) }

// WaitSyncedExcept is WaitSynced for the informers skip does not name
// (nil: every one): a source knows of some that they never will sync (a
// resource the user may not list), and waiting for them would only wait
// out ctx.
func (s *Source) WaitSyncedExcept(ctx context.Context, skip func(informer string) bool) error {
	waited := func(name string) bool { return skip == nil || !skip(name) }
	infs := s.list()
	for _, e := range infs {
		if !waited(e.name) {
			continue
		}
		if err := WaitDone(ctx, e.inf.HasSyncedChecker(), "informer "+e.name); err != nil {
			return err
		}
	}
	s.mu.Lock()
	var regs []*listenerEntry
	for _, e := range infs {
		if waited(e.name) {
			regs = append(regs, e.listeners...)
		}
	}
	s.mu.Unlock()
	for _, le := range regs {
		if err := WaitDone(ctx, le.reg.HasSyncedChecker(), "listener "+le.l.Name()); err != nil {
			return err
		}
	}
	return nil
}

// WaitDone waits for c or ctx; the error names what had not synced.
func WaitDone(ctx context.Context, c cache.DoneChecker, what string) error {
	select {
	case <-c.Done():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s has not synced: %w", what, ctx.Err())
	}
}
