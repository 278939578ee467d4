package source

import (
	"testing"
	"time"
)

// Silence is owed only by an informer that runs: a stopped one, or one
// that never heard anything, is not silent however long ago that was.
func TestFreshnessOfStoppedOrUnheardIsNotSilent(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := t0.Add(time.Hour)
	heard := Reflector{Watches: 1, WatchOpen: true, WatchSince: t0, LastHeard: t0.Add(time.Second), LastEventTime: t0.Add(time.Second)}
	if f := FreshnessOf(Informer{Started: true, Stopped: true, Reflector: heard}, later); f.Silent {
		t.Errorf("a stopped informer was reported silent: %+v", f)
	}
	if f := FreshnessOf(Informer{Started: true}, later); f.Silent || f.LastEventAgeSeconds != nil {
		t.Errorf("an informer that heard nothing: %+v, want not silent and no ages", f)
	}
	f := FreshnessOf(Informer{Started: true, Reflector: heard}, later)
	if !f.Silent || f.QuietSeconds != 3599 || f.SilentAfterSeconds != QuietWatchSilentAfter.Seconds() {
		t.Errorf("an hour after its last event: %+v, want silent for 3599 s past %v", f, QuietWatchSilentAfter)
	}
	// An open watch owes nothing before its own end: an event, or a
	// bookmark, does not make the next one due within a minute.
	for _, r := range []Reflector{
		{Watches: 2, WatchOpen: true, WatchSince: t0, LastHeard: t0},
		{Watches: 2, WatchOpen: true, WatchSince: t0, LastHeard: t0.Add(time.Second), LastEventTime: t0.Add(time.Second)},
		{Watches: 2, WatchOpen: true, WatchSince: t0, LastHeard: t0.Add(time.Second), LastBookmarkTime: t0.Add(time.Second)},
	} {
		if f := FreshnessOf(Informer{Started: true, Reflector: r}, t0.Add(2*SilentAfter)); f.Silent || f.SilentAfterSeconds != QuietWatchSilentAfter.Seconds() || f.WatchRestarts != 1 {
			t.Errorf("an open watch quiet for %v: %+v, want not yet silent, %v limit, 1 restart", 2*SilentAfter, f, QuietWatchSilentAfter)
		}
		if f := FreshnessOf(Informer{Started: true, Reflector: r}, t0.Add(QuietWatchSilentAfter+2*time.Second)); !f.Silent {
			t.Errorf("an open watch quiet past its timeout: %+v, want silent", f)
		}
	}
	// No watch open (the reflector cannot get one back): the short limit.
	down := Reflector{Watches: 2, WatchSince: t0, LastHeard: t0}
	if f := FreshnessOf(Informer{Started: true, Reflector: down}, t0.Add(SilentAfter+time.Second)); !f.Silent || f.SilentAfterSeconds != SilentAfter.Seconds() {
		t.Errorf("no watch for %v: %+v, want silent past %v", SilentAfter+time.Second, f, SilentAfter)
	}
}
