package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// Helpers for the live status lines under a scenario's note.

// listenerLine summarises one listener: "slow: 240 pending, in OnUpdate for 12.0s".
func listenerLine(ls source.Listener, now time.Time) string {
	line := fmt.Sprintf("%s: %s pending, %s delivered", ls.Name, humanize.Count(ls.Pending), humanize.Count(ls.Delivered.Total()))
	if ls.InCallback != "" && now.Sub(ls.InCallbackSince) >= time.Second {
		line += fmt.Sprintf(", in %s for %s", ls.InCallback, humanize.Tenths(now.Sub(ls.InCallbackSince).Seconds()))
	}
	if ls.CacheMutations > 0 {
		line += ", changed " + humanize.Plural(ls.CacheMutations, "cached object")
	}
	return line
}

// listenersStatus is one line per informer with each listener's backlog.
func listenersStatus(d *Demo) []string {
	now := time.Now()
	var lines []string
	for _, e := range d.Informers() {
		var parts []string
		for _, ls := range e.State().Listeners {
			parts = append(parts, listenerLine(ls, now))
		}
		prefix := ""
		if len(d.Informers()) > 1 {
			prefix = e.Name() + " · "
		}
		lines = append(lines, prefix+strings.Join(parts, " · "))
	}
	return lines
}

// reflectorStatus is one line per informer with the reflector's counters.
func reflectorStatus(d *Demo) []string {
	var lines []string
	for _, e := range d.Informers() {
		r := e.State().Reflector
		lines = append(lines, fmt.Sprintf("%s: %s · LISTs %d (relists %d) · WATCHes %d · errors %d",
			e.Name(), watchState(r, true), r.Lists, r.Relists, r.Watches, r.Errors))
	}
	return lines
}

// watchState is where a reflector stands: listing, watch open (with its
// age when withAge) or watch down.
func watchState(r source.Reflector, withAge bool) string {
	switch {
	case r.ListInProgress:
		return "listing"
	case r.WatchOpen && withAge:
		return "watch open " + humanize.Tenths(time.Since(r.WatchSince).Seconds())
	case r.WatchOpen:
		return "watch open"
	}
	return "watch down"
}
