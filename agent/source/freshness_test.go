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

// An open watch that asked for a timeout is owed its end then: quiet past
// that timeout and WatchEndGrace since it opened, it is silent, an event
// heard in between notwithstanding; silentAfterSeconds is the quiet it
// may have from its last sign of life. Heard past its promised end, it
// gets WatchEndGrace again.
func TestFreshnessFollowsTheWatchTimeout(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Reflector{Watches: 1, WatchOpen: true, WatchSince: t0, WatchTimeout: 300 * time.Second,
		LastHeard: t0.Add(time.Minute), LastEventTime: t0.Add(time.Minute)}
	inf := Informer{Started: true, Reflector: r}
	if f := FreshnessOf(inf, t0.Add(5*time.Minute+14*time.Second)); f.Silent || f.SilentAfterSeconds != 255 {
		t.Errorf("a 300 s watch 5m14s after it opened: %+v, want not yet silent, 255 s limit (to 5m15s)", f)
	}
	if f := FreshnessOf(inf, t0.Add(5*time.Minute+16*time.Second)); !f.Silent || f.QuietSeconds != 256 {
		t.Errorf("a 300 s watch 5m16s after it opened: %+v, want silent, 256 s quiet", f)
	}
	late := r
	late.LastHeard = t0.Add(6 * time.Minute)
	if f := FreshnessOf(Informer{Started: true, Reflector: late}, late.LastHeard.Add(10*time.Second)); f.Silent || f.SilentAfterSeconds != WatchEndGrace.Seconds() {
		t.Errorf("heard past its end: %+v, want not silent within %v", f, WatchEndGrace)
	}
}
