package main

import (
	"context"
	"io"
	"sync"

	"golang.org/x/term"

	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/tui"
)

// runDashboard runs the source and the TUI until the user quits, then
// stops the source and waits for it, so no goroutine outlives the program.
func runDashboard(ctx context.Context, src source.Source, o *options) error {
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { src.Run(runCtx) })
	defer wg.Wait()
	defer cancel()
	return tui.Run(runCtx, src, tui.Options{Refresh: o.refresh})
}

// isTerminal reports whether w is a terminal: a file descriptor (an
// *os.File, or anything else that has one) that term recognises.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
