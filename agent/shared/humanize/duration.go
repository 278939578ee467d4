package humanize

import (
	"strconv"
	"time"
)

// Duration renders d the way a person reads a clock: "350ms", "1.2s",
// "12s", "3m4s", "2h3m", "3d4h". Precision shrinks as the value grows so a
// column of ages stays narrow and stable. Negative durations read "0s".
func Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d == 0:
		return "0s"
	case d < time.Microsecond:
		// A fast handler's latency: "0µs" would read as "not measured".
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return strconv.FormatInt(int64(d/time.Microsecond), 10) + "µs"
	case d < time.Second:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	case d < 10*time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Second), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d < time.Hour:
		m := d / time.Minute
		s := (d % time.Minute) / time.Second
		return strconv.FormatInt(int64(m), 10) + "m" + strconv.FormatInt(int64(s), 10) + "s"
	case d < 24*time.Hour:
		h := d / time.Hour
		m := (d % time.Hour) / time.Minute
		return strconv.FormatInt(int64(h), 10) + "h" + strconv.FormatInt(int64(m), 10) + "m"
	default:
		days := d / (24 * time.Hour)
		h := (d % (24 * time.Hour)) / time.Hour
		return strconv.FormatInt(int64(days), 10) + "d" + strconv.FormatInt(int64(h), 10) + "h"
	}
}

// Elapsed is d rounded to unit in Go's notation, exact where Duration
// shrinks precision: "1m39s" (unit a second), "1.234s" (a millisecond).
// For messages that name one time, such as how long a command ran or
// where in a recording it stopped.
func Elapsed(d, unit time.Duration) string { return d.Round(unit).String() }

// Precise is Elapsed to the millisecond from 1ms on and to the
// microsecond below: "1.234s", "12ms", "250µs". For latencies in reports,
// where a workqueue's work often takes less than a millisecond.
func Precise(d time.Duration) string {
	if d >= time.Millisecond {
		return Elapsed(d, time.Millisecond)
	}
	return Elapsed(d, time.Microsecond)
}

// Tenths renders seconds with one decimal: "2.3s", "12.0s", for a figure
// that ticks up in a live status line or lines up in a table.
func Tenths(seconds float64) string {
	return strconv.FormatFloat(seconds, 'f', 1, 64) + "s"
}

// Seconds is d in seconds rounded to unit, for JSON figures such as
// "quietSeconds": 1.234 (unit a millisecond) that people read too.
func Seconds(d, unit time.Duration) float64 {
	return float64(d.Round(unit)) / float64(time.Second)
}
