package engine

import "time"

// SilentAfter is how long an informer may receive nothing — no watch event,
// no bookmark, no list page, no newly opened watch — before it is called
// silent. kube-apiserver sends a bookmark to every watch that asked for
// them (client-go's reflector always does) about once a minute (its
// cacher's defaultBookmarkFrequency; measured on v1.37: 60–62 s apart, see
// kube's TestBookmarkInterval), so a healthy watch never goes quiet for
// longer. 75 s is that minute plus the 15 s margin the API server itself
// allows (cacher.DefaultEventFreshDuration).
const SilentAfter = 75 * time.Second

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
	// QuietSeconds is how long nothing has arrived, whatever the threshold.
	QuietSeconds float64 `json:"quietSeconds"`
}

// FreshnessOf computes an informer's freshness from its snapshot at now.
func FreshnessOf(s Snapshot, now time.Time) Freshness {
	r := s.Reflector
	f := Freshness{
		LastEventAgeSeconds:    ageOf(r.LastEventTime, now),
		LastBookmarkAgeSeconds: ageOf(r.LastBookmarkTime, now),
		WatchAgeSeconds:        ageOf(r.WatchSince, now),
	}
	if r.Watches > 1 {
		f.WatchRestarts = r.Watches - 1
	}
	if last := r.LastHeard; !last.IsZero() && s.Started && !s.Stopped {
		quiet := max(now.Sub(last), 0)
		f.QuietSeconds = roundSeconds(quiet)
		f.Silent = quiet > SilentAfter
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
func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}
