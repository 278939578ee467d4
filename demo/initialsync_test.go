package demo

import (
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

func TestInitialSync(t *testing.T) {
	t.Parallel()
	// 2,300 objects in client-go's default pages of 500: five pages.
	const objects, pages = 2300, 5
	d := newDemo(t, Config{Scenario: "initial-sync", Seed: 7, Objects: objects, Rate: -1, TimeScale: 0.01})
	g := holdSteps(d, "late listener synced")
	allSynced := func(d *Demo) (bool, string) {
		for _, ls := range snapshotOf(t, d, "pods").Listeners {
			if !ls.Synced {
				return false, ls.Name + " has not synced"
			}
		}
		return true, ""
	}
	notes := watchNotes(d, map[string]claim{
		"listing": func(d *Demo) (bool, string) {
			r := snapshotOf(t, d, "pods").Reflector
			return r.Lists == 1, "the list has not started"
		},
		"informer synced":  claimSynced,
		"listeners synced": allSynced,
		"late listener": func(d *Demo) (bool, string) {
			return d.Listener("pods", "late") != nil, "there is no late listener"
		},
		"late listener synced": claimAll(allSynced, func(d *Demo) (bool, string) {
			return len(snapshotOf(t, d, "pods").Listeners) == 4, "the late listener is missing"
		}),
	})
	start(t, d)
	g.await(t, "late listener synced")
	waitfor.Seen(t, "the late listener syncing", func() (bool, string) {
		return registrationsSynced(d), "registrations not synced"
	})
	g.let("late listener synced")
	notes.await(t, "late listener synced")
	notes.check(t, "listing", "informer synced", "listeners synced", "late listener", "late listener synced")

	s := snapshotOf(t, d, "pods")
	if s.Reflector.ListPages != pages || s.Reflector.Lists != 1 {
		t.Errorf("listed in %d pages over %d lists, want %d pages in one list", s.Reflector.ListPages, s.Reflector.Lists, pages)
	}
	if s.Store.Objects != objects || s.Reflector.LastListItems != objects {
		t.Errorf("store holds %d objects, the list had %d; want %d", s.Store.Objects, s.Reflector.LastListItems, objects)
	}
	names := []string{"fast", "medium", "slow", "late"}
	ls := d.Listeners("pods")
	if len(ls) != len(names) {
		t.Fatalf("%d listeners, want %v", len(ls), names)
	}
	for i, l := range ls {
		rec := l.Record()
		if l.Name() != names[i] {
			t.Errorf("listener %d is %s, want %s", i, l.Name(), names[i])
		}
		// Each registration synced only after all its initial adds had
		// returned (and none saw HasSynced true during one: anomalies).
		if !rec.Synced || rec.InitialAddsAtSync != objects || rec.InitialAdds != objects || rec.Adds != objects {
			t.Errorf("%s: synced %v after %d initial adds (%d initial, %d adds), want all %d", l.Name(), rec.Synced, rec.InitialAddsAtSync, rec.InitialAdds, rec.Adds, objects)
		}
		if len(rec.Anomalies) > 0 {
			t.Errorf("%s: %v", l.Name(), rec.Anomalies)
		}
	}
	assertConsistent(t, d)
}

func TestInitialSyncWatchList(t *testing.T) {
	t.Parallel()
	const objects = 1200
	d := newDemo(t, Config{Scenario: "initial-sync", Seed: 7, Objects: objects, Rate: -1, TimeScale: 0.01, List: ListStream})
	g := holdSteps(d, "late listener")
	start(t, d)
	g.await(t, "late listener")
	s := snapshotOf(t, d, "pods")
	// The initial list was streamed on the watch: one list, no pages.
	if s.Reflector.Lists != 1 || s.Reflector.ListPages != 0 || s.Reflector.LastListItems != objects {
		t.Errorf("streamed list: %d lists, %d pages, %d items; want 1, 0, %d", s.Reflector.Lists, s.Reflector.ListPages, s.Reflector.LastListItems, objects)
	}
	if cs := d.cluster.Stats(); cs.Lists != 0 || cs.WatchListStreams != 1 {
		t.Errorf("server answered %d LISTs and %d streaming watches, want 0 and 1", cs.Lists, cs.WatchListStreams)
	}
	// Wherever the list is described, it is a stream, not pages.
	if !s.Reflector.ListStreamed {
		t.Error("the snapshot does not say the list was streamed")
	}
	if status := strings.Join(initialSyncStatus(d), "\n"); !strings.Contains(status, "streamed (WatchList)") || strings.Contains(status, "pages") {
		t.Errorf("status describes the streamed list as %q", status)
	}
	for _, l := range d.Listeners("pods") {
		if rec := l.Record(); rec.InitialAddsAtSync != objects {
			t.Errorf("%s synced after %d initial adds, want %d", l.Name(), rec.InitialAddsAtSync, objects)
		}
	}
	assertConsistent(t, d)
}
