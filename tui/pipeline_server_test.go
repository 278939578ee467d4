package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/informtop/informtop/agent/source"
)

// fixtureWatchPath is the demo server's watch path for the pods informer
// at frame i of the fixture: etcd three revisions ahead of the informer,
// the storage watcher's buffers light, a full watch cache window of
// 1,000 events, and two watchers: pods' own, and "slow-client" whose full
// buffer blocks the dispatch (the server will terminate it unless it
// drains); one watcher was already terminated. The event the dispatch
// waits with is received, not yet dispatched (each event counts once,
// however many watchers it goes to).
func fixtureWatchPath(i int) source.ServerStats {
	n := uint64(i)
	rv := uint64(48213 + 137*i)
	return source.ServerStats{
		Available: true, WatchCacheResourceVersion: fmt.Sprint(rv), WatchCacheCapacity: 1000,
		EventsReceived: 6800 + 137*n, EventsDispatched: 6799 + 137*n, WatchEventsSent: 12000 + 190*n,
		TerminatedWatchers: 1,
		Path: &source.WatchPath{
			EtcdRevision: rv + 3,
			// kube-apiserver v1.37 keeps no high-water mark on the etcd3
			// watcher's channels, one on the cacher's incoming channel.
			Incoming:       source.Buffer{Len: 3, Cap: 100},
			Outgoing:       source.Buffer{Len: 0, Cap: 100},
			Decoded:        6800 + 137*n,
			CacherIncoming: source.Buffer{Len: 1, Cap: 100, HighWater: 64},
			Cache:          source.WatchCache{Len: 1000, Capacity: 1000, OldestRV: rv - 999, NewestRV: rv},
			Watchers: []source.WatcherBuffer{
				{ID: 3, Client: "pods", Buffer: source.Buffer{Len: 2, Cap: 100, HighWater: 17}, Sent: 6100 + 137*n, Bookmarks: true},
				{ID: 5, Client: "slow-client", Buffer: source.Buffer{Len: 100, Cap: 100, HighWater: 100}, Sent: 812, Blocked: true},
			},
			BookmarksSent: 14 + n/5,
		},
	}
}

// serverFixture is the fixture with the pods informer's server watch path
// in every frame.
func serverFixture(t testing.TB, w, ht int) *harness {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(w, ht)
	for i := 0; i < fixtureFrames; i++ {
		src.SetServer(map[string]source.ServerStats{"pods": fixtureWatchPath(i)})
		h.frames(1)
	}
	return h
}

// The server side is drawn above the API server stage: folded into one
// line at 80×24, as stages at 160×48, and the key flips either.
func TestGoldenPipelineServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w, h   int
		keys   []string
		folded bool
	}{
		{"pipeline-server-80x24", 80, 24, nil, true},
		{"pipeline-server-expanded-80x24", 80, 24, []string{"e"}, false},
		{"pipeline-server-160x48", 160, 48, nil, false},
		{"pipeline-server-folded-160x48", 160, 48, []string{"e"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := serverFixture(t, tc.w, tc.h)
			h.keys(tc.keys...)
			got := h.screen()
			assertFits(t, got, tc.w, tc.h)
			if tc.folded {
				containsInOrder(t, got, "Server side etcd 49449 → ", "API server  pods", "Reflector")
				for _, want := range []string{"2 watchers (1 full), 1 terminated", "48447–49446"} {
					if !strings.Contains(got, want) {
						t.Errorf("the folded line lacks %q:\n%s", want, got)
					}
				}
				if strings.Contains(got, "Watch cache") {
					t.Errorf("folded, yet the watch cache stage is drawn:\n%s", got)
				}
			} else {
				// The cacher's incoming channel heads the watchers, with
				// the path's one high-water mark, in whatever wording fits.
				if !strings.Contains(got, "incoming 1/100, high-water 64 · 2 open · 1 terminated (too slow)") && !strings.Contains(got, "incoming 1/100 (high 64) · 2 open · 1 terminated (too slow)") {
					t.Errorf("the watchers line lacks the cacher's incoming channel:\n%s", got)
				}
				// v1.37's names for the etcd3 watcher's channels where
				// they fit, else shorter labels; both always labelled.
				storage := "Storage     etcd3 watcher: incoming 3/100 · result 0/100"
				if strings.Contains(got, "incomingEventChan") {
					storage = "Storage     etcd3 watcher: incomingEventChan 3/100 · resultChan 0/100"
				}
				containsInOrder(t, got, "etcd        revision 49449", storage, "Watch cache ", "Watchers    ",
					"⚠ #5 slow-client 100/100  full, terminating unless it drains", "#3 pods", "API server  pods", "Reflector")
			}
			// Whatever the size, every listener stays visible.
			for _, l := range []string{"audit", "fast", "slow", "late"} {
				if !strings.Contains(got, " "+l+" ") {
					t.Errorf("listener %s hidden:\n%s", l, got)
				}
			}
			// The real cluster's one-line sentence is not repeated: its
			// figures are in the stages.
			if strings.Contains(got, "watch cache at RV") {
				t.Errorf("the server sentence is drawn beside the watch path:\n%s", got)
			}
			golden(t, tc.name, got)
		})
	}
}

// The key is offered, in the footer and the help, only when the source
// knows the server's watch path; it toggles between folded and expanded.
func TestServerSideKeyOfferedWithPathAndToggles(t *testing.T) {
	h := serverFixture(t, 80, 24)
	footer := func() string { return h.footer() }
	if !strings.HasPrefix(footer(), "e expand server side") {
		t.Fatalf("footer does not offer the server-side key first: %q", footer())
	}
	if strings.Contains(h.screen(), "Watch cache") {
		t.Fatalf("80x24 starts expanded:\n%s", h.screen())
	}
	h.keys("e")
	if !strings.Contains(h.screen(), "Watch cache") || !strings.HasPrefix(footer(), "e fold server side") {
		t.Fatalf("e did not expand the server side:\n%s", h.screen())
	}
	h.keys("e")
	if strings.Contains(h.screen(), "Watch cache") || !strings.Contains(h.screen(), "Server side") {
		t.Fatalf("e again did not fold the server side:\n%s", h.screen())
	}
	// The choice holds across a resize.
	h.size(160, 48)
	if strings.Contains(h.screen(), "Watch cache") {
		t.Fatalf("a resize undid the user's fold:\n%s", h.screen())
	}
	h.keys("?")
	if !strings.Contains(h.screen(), "server side: fold/expand") {
		t.Fatalf("help does not list the server-side key:\n%s", h.screen())
	}

	// Without a watch path: not offered, and pressing it says why.
	h = fixture(t, 80, 24)
	if strings.Contains(footer(), "server side") {
		t.Fatalf("footer offers the server-side key without a watch path: %q", footer())
	}
	before := h.screen()
	h.keys("e")
	if !strings.Contains(footer(), "e does nothing here") {
		t.Fatalf("pressing e without a watch path says nothing: %q", footer())
	}
	if strings.Split(h.screen(), "\n")[5] != strings.Split(before, "\n")[5] {
		t.Fatalf("pressing e without a watch path changed the pipeline")
	}
	h.keys("?")
	if strings.Contains(h.screen(), "server side") {
		t.Fatalf("help lists the server-side key without a watch path:\n%s", h.screen())
	}
}

// A remapped server-side key drives the toggle, and the folded line names
// it.
func TestServerSideKeyRemapped(t *testing.T) {
	h := serverFixture(t, 160, 48)
	h.m.c.keys.ServerSide = key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "server side: fold/expand"))
	h.keys("e")
	if !strings.Contains(h.screen(), "Watch cache") {
		t.Fatalf("the old key still folds:\n%s", h.screen())
	}
	h.keys("E")
	if !strings.Contains(h.screen(), "· E expands") {
		t.Fatalf("the remapped key did not fold, or the line does not name it:\n%s", h.screen())
	}
}

// Expanded on a small terminal, the server stages give up their
// connectors and extra watchers before any listener disappears.
func TestServerSideExpandedKeepsListenersAtEverySize(t *testing.T) {
	h := serverFixture(t, 80, 24)
	h.keys("e")
	for _, sz := range [][2]int{{60, 16}, {70, 20}, {80, 24}, {100, 30}, {120, 40}} {
		h.size(sz[0], sz[1])
		got := h.screen()
		assertFits(t, got, sz[0], sz[1])
		if !strings.Contains(got, "Watch cache") {
			t.Errorf("%dx%d: expanded yet no watch cache stage:\n%s", sz[0], sz[1], got)
		}
		if sz[1] >= 24 {
			for _, l := range []string{"audit", "fast", "slow", "late"} {
				if !strings.Contains(got, " "+l+" ") {
					t.Errorf("%dx%d: listener %s hidden:\n%s", sz[0], sz[1], l, got)
				}
			}
		}
	}
}

// Without a watch path, the pipeline is exactly as before: the goldens of
// TestGoldenScreens pin it; here the real cluster's sentence stays.
func TestServerSentenceWithoutPath(t *testing.T) {
	src := newFixtureSource()
	st := fixtureWatchPath(9)
	st.Path = nil
	src.SetServer(map[string]source.ServerStats{"pods": st})
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	got := h.screen()
	containsInOrder(t, got, "API server  pods", "watch cache at RV 49446", "Reflector")
	for _, not := range []string{"Server side", "Watch cache", "etcd"} {
		if strings.Contains(got, not) {
			t.Errorf("without a watch path the pipeline shows %q:\n%s", not, got)
		}
	}
}

// What is in trouble stands out in the warn style, as a stalled listener
// does: a watcher the dispatch is blocked on, terminated watchers, a full
// buffer and revisions waiting in etcd; the same figures at rest do not.
func TestServerSideTroubleInWarnStyle(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(160, 48)
	st := fixtureWatchPath(9)
	src.SetServer(map[string]source.ServerStats{"pods": st})
	h.frames(fixtureFrames)
	warn := h.m.c.styles.warn.Render
	has := func(s string) bool { return strings.Contains(h.m.View().Content, s) }
	for _, want := range []string{
		warn("⚠ #5 slow-client 100/100  full, terminating unless it drains"),
		warn("1 terminated (too slow)"),
	} {
		if !has(want) {
			t.Errorf("not in the warn style: %q", ansi.Strip(want))
		}
	}
	if has(warn("⚠ incoming 3/100 full")) || has(warn("none pending")) {
		t.Errorf("a buffer with room is flagged:\n%s", h.screen())
	}

	// The storage watcher falls behind: its incoming buffer is full and
	// revisions wait in etcd; the watchers are all well, none terminated.
	p := *st.Path
	p.EtcdPending, p.Incoming = 7, source.Buffer{Len: 100, Cap: 100, HighWater: 100}
	p.Watchers = p.Watchers[:1]
	st.Path, st.TerminatedWatchers = &p, 0
	src.SetServer(map[string]source.ServerStats{"pods": st})
	h.frames(1)
	for _, want := range []string{
		warn("⚠ incoming 100/100 full"),
		warn("7 pending: the storage watcher's incoming channel is full"),
	} {
		if !has(want) {
			t.Errorf("not in the warn style: %q\n%s", ansi.Strip(want), h.screen())
		}
	}
	if has(warn("0 terminated")) || !strings.Contains(h.screen(), "1 open · 0 terminated ·") {
		t.Errorf("no terminated watcher, yet flagged or not said:\n%s", h.screen())
	}
	// Folded, the same trouble stays flagged on the one line.
	h.keys("e")
	if !has(warn(" (7 pending)")) || !has(warn("in 100/100 full")) {
		t.Errorf("the folded line does not flag the full buffer and pending revisions:\n%s", h.screen())
	}
}

// A real cluster's reading comes every few seconds; once there are two,
// the API server's line gives the rates of events received and
// dispatched between them.
func TestServerLineRatesFromTwoReadings(t *testing.T) {
	src := newFixtureSource()
	first := fixtureWatchPath(1)
	first.Path, first.Taken = nil, t0
	src.SetServer(map[string]source.ServerStats{"pods": first})
	h := newHarness(t, src)
	h.size(200, 48)
	h.frames(2)
	if got := h.screen(); strings.Contains(got, "/s) ") || !strings.Contains(got, "6,937 received, 6,936 dispatched") {
		t.Fatalf("one reading: want totals without rates:\n%s", got)
	}
	second := fixtureWatchPath(11)
	second.Path, second.Taken = nil, t0.Add(5*time.Second)
	// The cacher's incoming channel holds 60 received events not yet
	// dispatched, so the two rates differ.
	second.EventsDispatched -= 60
	src.SetServer(map[string]source.ServerStats{"pods": second})
	h.frames(2)
	// 1,370 more received and 1,310 more dispatched in 5 s.
	if got := h.screen(); !strings.Contains(got, "8,307 received (274/s), 8,246 dispatched (262/s)") {
		t.Fatalf("two readings: want the rates between them:\n%s", got)
	}
}

// Bookmarks sent faster than kube-apiserver sends them are flagged on the
// watch cache stage, with the speed-up; at the real pace nothing is added.
func TestServerBookmarkPace(t *testing.T) {
	for _, tc := range []struct {
		every, real time.Duration
		long, short string
	}{
		{time.Second, time.Minute, " (every 1s, ×60 kube-apiserver's pace)", " ×60"},
		{time.Minute, time.Minute, "", ""},
		{0, time.Minute, "", ""},
	} {
		long, short := bookmarkPace(&source.WatchPath{BookmarkEvery: tc.every, RealBookmarks: tc.real})
		if long != tc.long || short != tc.short {
			t.Errorf("every %v, real %v: %q, %q; want %q, %q", tc.every, tc.real, long, short, tc.long, tc.short)
		}
	}
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(200, 48)
	for i := 0; i < fixtureFrames; i++ {
		st := fixtureWatchPath(i)
		st.Path.BookmarkEvery, st.Path.RealBookmarks = time.Second, time.Minute
		src.SetServer(map[string]source.ServerStats{"pods": st})
		h.frames(1)
	}
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "bookmarks sent (every 1s, ×60 kube-apiserver's pace)") {
		t.Fatalf("the watch cache stage does not flag the bookmarks' pace:\n%s", s)
	}
}

// A client's watch answered with only an ERROR event (410 Gone) is open
// while the server has no watcher for it: the Watchers line says both.
func TestWatchersLineCountsErrorOnlyStreams(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(160, 48)
	st := fixtureWatchPath(0)
	p := *st.Path
	p.Watchers, p.ErrorStreams = nil, 1
	st.Path = &p
	src.SetServer(map[string]source.ServerStats{"pods": st})
	h.frames(1)
	if !strings.Contains(h.screen(), "none open (+1 stream answered with only an ERROR event, no watcher)") {
		t.Fatalf("the watchers line does not explain the open error stream:\n%s", h.screen())
	}
}
