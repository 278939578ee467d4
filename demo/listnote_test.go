package demo

import (
	"strings"
	"testing"
)

// By default the demo's informers stream their initial list, as client-go
// v0.37 does against kube-apiserver v1.37, and the streamed ADDED events
// and the bookmark that ends them are counted where the note says; with
// ListPages they LIST, and the note says why.
func TestInitialListNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		list     ListMode
		streamed bool
		want     string
	}{
		{"auto", ListAuto, true, "Initial list of pods: streamed (WatchList, as client-go v0.37 does), 20 ADDED events then a bookmark"},
		{"pages", ListPages, false, "Initial list of pods: LIST, 1 page (--watch-list off: the server has no WatchList)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 12, Objects: 20, Rate: -1, TimeScale: 0.01, List: tc.list})
			g := holdSteps(d, "stall slow")
			start(t, d)
			g.await(t, "stall slow")
			notes := strings.Join(d.Notes(), "\n")
			if !strings.Contains(notes, tc.want) {
				t.Errorf("notes at the intro lack %q:\n%s", tc.want, notes)
			}
			r := snapshotOf(t, d, "pods").Reflector
			if r.ListStreamed != tc.streamed {
				t.Errorf("list streamed %v, want %v", r.ListStreamed, tc.streamed)
			}
			if tc.streamed && (r.WatchAdded != 20 || r.WatchBookmarks != 1 || r.LastBookmarkTime.IsZero() || r.ListPages != 0) {
				t.Errorf("streamed: %d ADDED, %d bookmarks (last at %v), %d pages; want the 20 streamed ADDED and the end bookmark counted, no page",
					r.WatchAdded, r.WatchBookmarks, r.LastBookmarkTime, r.ListPages)
			}
			if !tc.streamed && (r.WatchEvents != 0 || r.ListPages != 1) {
				t.Errorf("paged: %d watch events, %d pages; want none and 1", r.WatchEvents, r.ListPages)
			}
		})
	}
}

// initial-sync teaches LIST pages, so by default its server has no
// WatchList, and its note says that v0.37 against v1.37 would stream.
func TestInitialSyncPagesByDefault(t *testing.T) {
	for _, tc := range []struct {
		list      ListMode
		watchList bool
		want      string
	}{
		{ListAuto, false, "This scenario's server has WatchList off to show the pages"},
		{ListStream, true, "streams 100 pods as a watch list (ADDED events, then a bookmark)"},
		{ListPages, false, "LISTs 100 pods in pages of 500"},
	} {
		rc, sc, err := resolve(Config{Scenario: "initial-sync", Objects: 100, List: tc.list})
		if err != nil {
			t.Fatal(err)
		}
		if rc.watchList != tc.watchList {
			t.Errorf("list mode %d: server streams %v, want %v", tc.list, rc.watchList, tc.watchList)
		}
		if note := strings.Join(sc.build(rc).script[0].note, " "); !strings.Contains(note, tc.want) {
			t.Errorf("list mode %d: note %q lacks %q", tc.list, note, tc.want)
		}
	}
	// Every other scenario streams by default.
	for _, name := range scenarioNames() {
		if rc, _, err := resolve(Config{Scenario: name}); err != nil || rc.watchList != (name != "initial-sync") {
			t.Errorf("%s: streams by default %v (%v)", name, rc.watchList, err)
		}
	}
}
