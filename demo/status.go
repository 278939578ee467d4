package demo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/engine/processor"
)

// Helpers for the live status lines under a scenario's note.

// count renders n with thousands separators: 50000 → "50,000".
func count[T ~int | ~int64 | ~uint64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// seconds renders a duration as "2.3s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// listenerLine summarises one listener: "slow: 240 pending, in OnUpdate for 12.0s".
func listenerLine(ls processor.ListenerStats, now time.Time) string {
	line := fmt.Sprintf("%s: %s pending, %s delivered", ls.Name, count(ls.Pending), count(ls.Delivered.Total()))
	if ls.InCallback != "" && now.Sub(ls.InCallbackSince) >= time.Second {
		line += fmt.Sprintf(", in %s for %s", ls.InCallback, seconds(now.Sub(ls.InCallbackSince)))
	}
	return line
}

// listenersStatus is one line per informer with each listener's backlog.
func listenersStatus(d *Demo) []string {
	now := time.Now()
	var lines []string
	for _, e := range d.infs {
		var parts []string
		for _, ls := range e.inf.Snapshot().Listeners {
			parts = append(parts, listenerLine(ls, now))
		}
		prefix := ""
		if len(d.infs) > 1 {
			prefix = e.name + " · "
		}
		lines = append(lines, prefix+strings.Join(parts, " · "))
	}
	return lines
}

// reflectorStatus is one line per informer with the reflector's counters.
func reflectorStatus(d *Demo) []string {
	var lines []string
	for _, e := range d.infs {
		r := e.inf.Snapshot().Reflector
		state := "watch down"
		switch {
		case r.ListInProgress:
			state = "listing"
		case r.WatchOpen:
			state = "watch open " + seconds(time.Since(r.WatchSince))
		}
		lines = append(lines, fmt.Sprintf("%s: %s · LISTs %d (relists %d) · WATCHes %d · errors %d",
			e.name, state, r.Lists, r.Relists, r.Watches, r.Errors))
	}
	return lines
}
