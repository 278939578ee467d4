package main

import (
	"context"
	"io"
	"sync"

	"golang.org/x/term"

	"github.com/informtop/informtop/kube"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/tui"
)

// runDashboard runs the source and the TUI until the user quits, then
// stops the source and waits for it, so no goroutine outlives the program.
// On a cluster, ":ctx NAME" replaces the source with one on the other
// context; each is stopped once it is replaced, and waited for here.
func runDashboard(ctx context.Context, src source.Source, o *options) error {
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var mu sync.Mutex
	stopCurrent := func() {}
	run := func(s source.Source) {
		sctx, stop := context.WithCancel(runCtx)
		mu.Lock()
		stopCurrent()
		stopCurrent = stop
		mu.Unlock()
		wg.Go(func() { s.Run(sctx) })
	}
	run(src)
	opts := tui.Options{Refresh: o.refresh}
	if c, ok := src.(chosen); ok && c.kube != nil {
		current := c.kube
		opts.Contexts = func() ([]string, string) {
			names, _ := kube.Contexts(o.kubeFlags)
			mu.Lock()
			defer mu.Unlock()
			return names, current.Scope().Context
		}
		opts.UseContext = func(ctx context.Context, name string) (source.Source, error) {
			ko, err := o.kubeOptions()
			if err != nil {
				return nil, err
			}
			mu.Lock()
			ko.Resources = current.Watched()
			mu.Unlock()
			ko.Flags = kube.InContext(o.kubeFlags, name)
			k, err := kube.New(ctx, ko)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			current = k
			mu.Unlock()
			run(k)
			return k, nil
		}
	}
	return tui.Run(runCtx, src, opts)
}

// isTerminal reports whether w is a terminal: a file descriptor (an
// *os.File, or anything else that has one) that term recognises.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
