package tui

import (
	"strconv"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// The numbers, durations, rates and plurals the screens show come from
// internal/humanize; what is here is about the dashboard's layout.

// perColumn names a chart's sampling interval: "1s per column".
func perColumn(d time.Duration) string {
	if d%time.Second == 0 && d < time.Minute {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s per column"
	}
	return humanize.Duration(d) + " per column"
}

// since is now minus t, or zero when t is unset, so callers can render an
// age without checking for missing timestamps.
func since(now, t time.Time) time.Duration {
	if t.IsZero() || now.Before(t) {
		return 0
	}
	return now.Sub(t)
}

// latency renders a handler latency cell; zero means "no calls measured
// yet" and reads "-".
func latency(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return humanize.Duration(d)
}

// yesNo renders a boolean as a mark that survives monochrome terminals.
func yesNo(b bool) string {
	if b {
		return "✓"
	}
	return "✗"
}
