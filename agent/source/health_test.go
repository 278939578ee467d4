package source

import (
	"testing"
	"time"
)

// The fleet's order: a process Prometheus cannot scrape, then a stalled
// handler (the longest first), a backlog (the largest first), not
// synced, stale, healthy.
func TestRankProcessesWorstFirst(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	inf := func(name string, synced bool, ls ...Listener) Informer {
		return Informer{Name: name, Synced: synced, Started: true, Taken: now, Listeners: ls,
			Reflector: Reflector{WatchOpen: true, LastHeard: now.Add(-time.Second), LastEventTime: now.Add(-time.Second)}}
	}
	stalled := func(d time.Duration) Listener {
		return Listener{Name: "h", InCallback: CallbackUnknown, InCallbackSince: now.Add(-d), Pending: 3, OldestPendingSince: now.Add(-d)}
	}
	behind := func(n int) Listener {
		return Listener{Name: "h", Pending: n, OldestPendingSince: now.Add(-10 * time.Second)}
	}
	silent := inf("silent", true)
	silent.Reflector.LastHeard, silent.Reflector.LastEventTime = now.Add(-2*QuietWatchSilentAfter), now.Add(-2*QuietWatchSilentAfter)
	snaps := []Informer{
		inf("ok", true), inf("stalled-5s", true, stalled(5*time.Second)), inf("stalled-1m", true, stalled(time.Minute)),
		inf("backlog-10", true, behind(10)), inf("backlog-500", true, behind(500)), inf("unsynced", false), silent,
		// In a callback, but not past the threshold; a little behind.
		inf("busy", true, Listener{Name: "h", InCallback: CallbackAdd, InCallbackSince: now.Add(-time.Second), Pending: 1, OldestPendingSince: now.Add(-time.Second)}),
	}
	var ps []Process
	for _, s := range snaps {
		ps = append(ps, Process{Job: "j", Instance: s.Name, Up: true, Informers: []string{s.Name}})
	}
	ps = append(ps, Process{Job: "j", Instance: "down"})
	hs := RankProcesses(ps, snaps, now, StallAfter)
	want := []struct {
		instance string
		trouble  Trouble
	}{{"down", Down}, {"stalled-1m", Stalled}, {"stalled-5s", Stalled}, {"backlog-500", Backlog}, {"backlog-10", Backlog}, {"unsynced", NotSynced},
		{"silent", Stale}, {"busy", Healthy}, {"ok", Healthy}}
	for i, w := range want {
		if ps[i].Instance != w.instance || hs[i].Trouble != w.trouble {
			t.Errorf("%d: %s %s, want %s %s", i, ps[i].Instance, hs[i].Trouble, w.instance, w.trouble)
		}
	}
	if h := hs[1]; h.Listener != "h" || !h.Since.Equal(now.Add(-time.Minute)) || h.Pending != 3 {
		t.Errorf("the worst is %+v, want listener h stalled a minute with 3 waiting", h)
	}
	if hs[6].Stale != StaleSilent {
		t.Errorf("stale as %q, want %q", hs[6].Stale, StaleSilent)
	}
}

func TestTroubleReadsAndWritesItsWord(t *testing.T) {
	for tr := Healthy; tr <= Down; tr++ {
		b, err := tr.MarshalText()
		var back Trouble
		if err != nil || back.UnmarshalText(b) != nil || back != tr {
			t.Errorf("%d → %q (%v) → %d", tr, b, err, back)
		}
	}
	if _, err := Trouble(99).MarshalText(); err == nil {
		t.Error("an unknown trouble was written")
	}
}
