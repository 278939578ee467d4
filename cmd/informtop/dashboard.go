package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"golang.org/x/term"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/kube"
	"github.com/informtop/informtop/tui"
)

// dashboardGOGC is the dashboard's GOGC unless the user set one.
const dashboardGOGC = 50

// runDashboard runs the source and the TUI until the user quits, then
// stops the source and waits for it, at most stopGrace, so the program
// ends promptly and nothing is left behind but what the exit stops.
// On a cluster, ":ctx NAME" replaces the source with one on the other
// context; each is stopped once it is replaced, and waited for here.
func runDashboard(ctx context.Context, src source.Source, o *options) error {
	if _, set := os.LookupEnv("GOGC"); !set {
		// The dashboard redraws ten times a second, so unlike an idle
		// controller its heap keeps growing to the collector's goal:
		// twice the cache with Go's default of 100. At 50 the goal is
		// 1.5×, for a collection every few seconds of redraws, each a
		// few tens of milliseconds (docs/benchmarks.md, "The dashboard's
		// memory").
		debug.SetGCPercent(dashboardGOGC)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		waitAtMost(&wg, stopGrace)
	}()
	var mu sync.Mutex
	stopCurrent := func() {}
	ended := false // the dashboard has returned: a late :ctx starts nothing
	run := func(s source.Source) bool {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return false
		}
		sctx, stop := context.WithCancel(runCtx)
		stopCurrent()
		stopCurrent = stop
		wg.Go(func() { s.Run(sctx) })
		return true
	}
	run(src)
	opts := tui.Options{Refresh: o.refresh}
	if src.Kind() == "fleet" {
		opts.Attach = attachFromFleet(runCtx, &wg, o.fleetAttach)
	}
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
			if !run(k) {
				return nil, errors.New("the dashboard has ended")
			}
			mu.Lock()
			current = k
			mu.Unlock()
			return k, nil
		}
	}
	err := tui.Run(runCtx, src, opts)
	mu.Lock()
	ended = true
	mu.Unlock()
	return err
}

// isTerminal reports whether w is a terminal: a file descriptor (an
// *os.File, or anything else that has one) that term recognises.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
