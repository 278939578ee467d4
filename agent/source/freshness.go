package source

import (
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// SilentAfter is how long an informer whose watch has shown progress may
// receive nothing — no watch event, no bookmark, no list page, no newly
// opened watch — before it is called silent; it also applies while no
// watch is open. kube-apiserver's watch cache sends a bookmark to every
// watch that asked for them (client-go's reflector always does) about once
// a minute (the cacher's defaultBookmarkFrequency; measured on v1.37 by
// kube's TestBookmarkInterval), but only once the resource's
// resourceVersion has moved past the one the watch started at: a watch
// that has delivered an event or a bookmark is owed one every minute. 75 s
// is that minute plus the 15 s margin the API server allows itself
// (cacher.DefaultEventFreshDuration).
const SilentAfter = 75 * time.Second

// QuietWatchSilentAfter applies to an open watch that has delivered
// nothing since it opened: on a resource nobody writes the server sends
// no bookmark at all, and the watch ends only at its timeout, which
// client-go's reflector sets to 5–10 minutes; the next watch opening is
// then the sign of life. 10 minutes plus the same 15 s margin.
const QuietWatchSilentAfter = 10*time.Minute + 15*time.Second

// Freshness says how recently an informer heard from the server. Ages are
// nil when the thing never happened (no event yet, no watch open).
type Freshness struct {
	LastEventAgeSeconds    *float64 `json:"lastEventAgeSeconds"`
	LastBookmarkAgeSeconds *float64 `json:"lastBookmarkAgeSeconds"`
	WatchAgeSeconds        *float64 `json:"watchAgeSeconds"`
	// WatchRestarts counts watch streams opened after the first one.
	WatchRestarts uint64 `json:"watchRestarts"`
	// Silent is true when nothing has arrived for longer than SilentAfter
	// while the informer runs: a stream open but stuck, or a watch that
	// cannot be re-established.
	Silent bool `json:"silent"`
	// QuietSeconds is how long nothing has arrived; SilentAfterSeconds
	// the threshold that applies now (SilentAfter, or
	// QuietWatchSilentAfter for a watch quiet since it opened).
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
	if r.WatchOpen && !r.LastEventTime.After(r.WatchSince) && !r.LastBookmarkTime.After(r.WatchSince) {
		limit = QuietWatchSilentAfter
	}
	f.SilentAfterSeconds = limit.Seconds()
	if last := r.LastHeard; !last.IsZero() && s.Started && !s.Stopped {
		quiet := max(now.Sub(last), 0)
		f.QuietSeconds = roundSeconds(quiet)
		f.Silent = quiet > limit
	}
	return f
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
