package tui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/informtop/informtop/agent/source"
)

// ErrNotTerminal is returned by Run when stdout is not a terminal.
var ErrNotTerminal = errors.New("stdout is not a terminal, so the dashboard cannot start; use --once for a table or --once --json for JSON")

// Run shows the dashboard over src in the alternate screen until the user
// quits or ctx ends; both return nil. The terminal is restored and no
// goroutine of the dashboard is left when it returns. Stopping the engine
// behind src is the caller's job, after Run returns.
func Run(ctx context.Context, src source.Source, opts Options) error {
	if !term.IsTerminal(int(os.Stdout.Fd())) {
		return ErrNotTerminal
	}
	m, err := New(src, opts)
	if err != nil {
		return err
	}
	// SIGINT and SIGTERM end ctx (the command's session): Bubble Tea's own
	// handler would race it and, when the program had already quit, block
	// its shutdown forever on a message nobody reads.
	return run(ctx, m, tea.WithoutSignalHandler())
}

// run drives m in a Bubble Tea program; tests pass their own input and
// output through opts.
func run(ctx context.Context, m *Model, opts ...tea.ProgramOption) error {
	done := make(chan struct{})
	m.done = done
	p := tea.NewProgram(m, opts...)

	// Quit through the program rather than killing it, so the terminal is
	// restored the same way as when the user presses q.
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		select {
		case <-ctx.Done():
			p.Quit()
		case <-done:
		}
	}()

	_, err := p.Run()
	close(done)
	<-watcherDone
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}
