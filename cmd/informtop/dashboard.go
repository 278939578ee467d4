package main

import (
	"context"
	"io"
	"os"
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
