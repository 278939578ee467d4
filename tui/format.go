package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/internal/humanize"
)

// humanDuration renders d the way a person reads a clock: "350ms", "1.2s",
// "12s", "3m4s", "2h3m", "3d4h". Precision shrinks as the value grows so a
// column of ages stays narrow and stable.
func humanDuration(d time.Duration) string {
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

// perColumn names a sampling interval: "1s per column".
func perColumn(d time.Duration) string {
	if d%time.Second == 0 && d < time.Minute {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s per column"
	}
	return humanDuration(d) + " per column"
}

// since is now minus t, or zero when t is unset, so callers can render an
// age without checking for missing timestamps.
func since(now, t time.Time) time.Duration {
	if t.IsZero() || now.Before(t) {
		return 0
	}
	return now.Sub(t)
}

// count renders an integer with thousands separators below ten million and
// with an SI suffix from there on (12,345,678 → "12M"); exact values matter
// while teaching, huge ones do not.
func count[T int | int64 | uint64](n T) string {
	if v := float64(n); v >= 1e7 || v <= -1e7 {
		return compact(v)
	}
	return humanize.Count(n)
}

// compact renders v with at most three significant digits and a k/M/G suffix.
func compact(v float64) string {
	switch {
	case v < 0:
		return "-" + compact(-v)
	case v < 10:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v < 999.5: // rounds below 1000
		return strconv.FormatInt(int64(v+0.5), 10)
	case v < 1e6:
		return scaled(v/1e3) + "k"
	case v < 1e9:
		return scaled(v/1e6) + "M"
	default:
		return scaled(v/1e9) + "G"
	}
}

func scaled(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatInt(int64(v+0.5), 10)
}

// rate renders a per-second rate: "0/s", "0.5/s", "5/s", "1.2k/s". Rates
// are counts of whole things over an interval a little longer than a
// second (the history samples at least a second apart), so from one per
// second on they are rounded to whole numbers: 5 events read "5/s", not
// "4.9/s". Below one, a tenth says "now and then".
func rate(perSecond float64) string {
	switch {
	case perSecond < 0.05:
		return "0/s"
	case perSecond < 0.95:
		return strconv.FormatFloat(perSecond, 'f', 1, 64) + "/s"
	case perSecond < 999.5:
		return strconv.FormatInt(int64(perSecond+0.5), 10) + "/s"
	}
	return compact(perSecond) + "/s"
}

// rateNumber is rate without its unit, for "235 ev/s".
func rateNumber(perSecond float64) string { return strings.TrimSuffix(rate(perSecond), "/s") }

// latency renders a handler latency; zero means "no calls measured yet".
func latency(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return humanDuration(d)
}

// plural renders "1 relist", "3 relists", "2 watches", "12M objects": the
// number as count shows it, then the noun as humanize.Noun inflects it.
func plural[T int | uint64](n T, noun string) string {
	return count(n) + " " + humanize.Noun(n, noun)
}

// yesNo renders a boolean as a mark that survives monochrome terminals.
func yesNo(b bool) string {
	if b {
		return "✓"
	}
	return "✗"
}
