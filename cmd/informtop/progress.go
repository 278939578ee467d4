package main

import (
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// progress is how --once shows, on a terminal's stderr, what it is waiting
// for when the sync takes a while. Tests set isTerminal and after.
type progress struct {
	after      time.Duration // quiet until the wait is this long
	every      time.Duration // then one repaint per interval
	isTerminal func(io.Writer) bool
}

var defaultProgress = progress{after: 1500 * time.Millisecond, every: 500 * time.Millisecond, isTerminal: isTerminal}

// clearLine returns to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// waitSynced is src.WaitSynced, painting one status line on w while it
// waits longer than p.after, and erasing it before returning. Nothing is
// written when w is not a terminal: a pipe or a log gets only the report.
func (p progress) waitSynced(wait func() error, src source.Source, w io.Writer) error {
	if p.isTerminal == nil || !p.isTerminal(w) {
		return wait()
	}
	done := make(chan error, 1)
	go func() { done <- wait() }()
	start := time.Now()
	tick := time.NewTimer(p.after)
	defer tick.Stop()
	painted := false
	for {
		select {
		case err := <-done:
			if painted {
				fmt.Fprint(w, clearLine)
			}
			return err
		case <-tick.C:
			// A cursor past every event: only the snapshots are wanted.
			f := src.Pull(math.MaxUint64, 1)
			fmt.Fprint(w, clearLine+clip(progressLine(f, time.Since(start)), width(w)))
			painted = true
			tick.Reset(p.every)
		}
	}
}

// progressLine says how long --once has waited and for what: how many
// informers have synced and why the first one that has not is not done.
func progressLine(f source.Frame, waited time.Duration) string {
	synced := 0
	why := ""
	for _, s := range f.Snapshots {
		if s.Synced {
			synced++
			continue
		}
		if why == "" {
			why = "; " + s.Name + ": " + say.Reason(f.Reasons, s, f.Taken)
		}
	}
	return fmt.Sprintf("informtop: waiting %s for the sync: %s of %s synced%s",
		humanize.Elapsed(waited, time.Second), humanize.Count(synced), humanize.Plural(len(f.Snapshots), "informer"), why)
}

// width is the terminal's width, 0 when it cannot be read.
func width(w io.Writer) int {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 0
}

// clip cuts s to n-1 columns with an ellipsis, so the line never wraps
// and a carriage return repaints it whole; n 0 (width unknown) keeps s.
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) < n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-2, 0)]) + "…"
}
