package source

import (
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// SilentAfter is how long an informer with no watch open (one it cannot
// re-establish) may hear nothing — no watch event, no bookmark, no list
// page, no newly opened watch — before it is called silent: client-go's
// reflector retries a failed watch within a second or two, so a minute
// and a quarter without one is a reflector that cannot get a watch back.
const SilentAfter = 75 * time.Second

// QuietWatchSilentAfter applies to an open watch whose timeout is not
// known (it asked for none). Nothing on a watch is owed sooner than its
// end: kube-apiserver sends a watch an event only when an object changes,
// and a bookmark (about once a minute, the cacher's
// defaultBookmarkFrequency) only once its watch cache's resourceVersion
// has moved past the one the watch has seen — on a resource nobody
// writes that waits for etcd's progress notifications, minutes apart, so
// a healthy idle watch can go well past a minute without a bookmark after
// an event or a first bookmark. What is owed is the watch's end: the
// server closes it at the timeout client-go's reflector asks for, 5–10
// minutes, and the reflector opens the next at once. 10 minutes plus
// WatchEndGrace.
const QuietWatchSilentAfter = 10*time.Minute + WatchEndGrace

// WatchEndGrace is how long past the end its timeout promised an open
// watch may stay open before it is called silent: the 15 s margin the API
// server allows itself (cacher.DefaultEventFreshDuration).
const WatchEndGrace = 15 * time.Second

// Freshness says how recently an informer heard from the server. Ages are
// nil when the thing never happened (no event yet, no watch open).
type Freshness struct {
	LastEventAgeSeconds    *float64 `json:"lastEventAgeSeconds"`
	LastBookmarkAgeSeconds *float64 `json:"lastBookmarkAgeSeconds"`
	WatchAgeSeconds        *float64 `json:"watchAgeSeconds"`
	// WatchRestarts counts watch streams opened after the first one.
	WatchRestarts uint64 `json:"watchRestarts"`
	// Silent is true when nothing has arrived for longer than the
	// server owes while the informer runs: a stream open but stuck past
	// its own timeout, or a watch that cannot be re-established.
	Silent bool `json:"silent"`
	// QuietSeconds is how long nothing has arrived; SilentAfterSeconds
	// how long it may before the informer is silent, the limit in force
	// now: while a watch is open, until WatchEndGrace past the end its
	// timeout promised (QuietWatchSilentAfter when it asked for none);
	// SilentAfter while none is.
	QuietSeconds       float64 `json:"quietSeconds"`
	SilentAfterSeconds float64 `json:"silentAfterSeconds"`
}

// FreshnessOf computes an informer's freshness from its snapshot at now.
func FreshnessOf(s Informer, now time.Time) Freshness {
	r := s.Reflector
	f := Freshness{
		LastEventAgeSeconds:    ageOf(r.LastEventTime, now),
		LastBookmarkAgeSeconds: ageOf(r.LastBookmarkTime, now),
		WatchAgeSeconds:        ageOf(r.WatchSince, now),
	}
	if r.Watches > 1 {
		f.WatchRestarts = r.Watches - 1
	}
	limit := SilentAfter
	last := r.LastHeard
	if r.WatchOpen {
		limit = watchLimit(r, last)
	}
	f.SilentAfterSeconds = roundSeconds(limit)
	if !last.IsZero() && s.Started && !s.Stopped {
		quiet := max(now.Sub(last), 0)
		f.QuietSeconds = roundSeconds(quiet)
		f.Silent = quiet > limit
	}
	return f
}

// watchLimit is how long after last an open watch may stay quiet: until
// WatchEndGrace past the end its timeout promised, at least WatchEndGrace
// (a watch heard past its promised end, as some proxies allow, gets that
// long again); QuietWatchSilentAfter when the watch asked for no timeout
// or the end is not known.
func watchLimit(r Reflector, last time.Time) time.Duration {
	if r.WatchTimeout <= 0 || r.WatchSince.IsZero() || last.IsZero() {
		return QuietWatchSilentAfter
	}
	end := r.WatchSince.Add(r.WatchTimeout + WatchEndGrace)
	return max(end.Sub(last), WatchEndGrace)
}

func ageOf(t, now time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	a := roundSeconds(max(now.Sub(t), 0))
	return &a
}

// roundSeconds keeps milliseconds: finer is noise at these scales.
func roundSeconds(d time.Duration) float64 { return humanize.Seconds(d, time.Millisecond) }
