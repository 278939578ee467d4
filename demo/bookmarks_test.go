package demo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

func TestBookmarks(t *testing.T) {
	t.Parallel()
	// With --watch-list the informers stream their lists, except the one
	// without bookmarks, which could not see such a list end.
	for _, tc := range []struct {
		q         source.QueueKind
		watchList bool
	}{{source.RealFIFO, false}, {source.DeltaFIFO, false}, {source.RealFIFO, true}} {
		q := tc.q
		name := q.String()
		if tc.watchList {
			name += "/watch-list"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: "bookmarks", Seed: 8, Queue: q, Objects: 40, Rate: 100, TimeScale: 0.01, List: listMode(tc.watchList)})
			g := holdSteps(d, "done")
			var quietListRV uint64
			notes := watchNotes(d, map[string]claim{
				"intro": claimAll(claimSynced, func(d *Demo) (bool, string) {
					quietListRV = informerRV(d, "quiet")
					return quietListRV > 0, "quiet has no resourceVersion"
				}, claimBookmarksSpedUp),
				// The resourceVersion moved by bookmarks alone, and the
				// note says where they went for this queue.
				"bookmarked": func(d *Demo) (bool, string) {
					s := snapshotOf(t, d, "quiet")
					r := s.Reflector
					if r.WatchAdded+r.WatchModified+r.WatchDeleted != 0 || r.WatchBookmarks == 0 {
						return false, fmt.Sprintf("quiet got %d object events and %d bookmarks", r.WatchAdded+r.WatchModified+r.WatchDeleted, r.WatchBookmarks)
					}
					if rv := informerRV(d, "quiet"); rv <= quietListRV {
						return false, fmt.Sprintf("quiet is still at RV %d", rv)
					}
					// The note starts from where quiet stood as the intro
					// showed (a bookmark may land between the two reads).
					var from, to uint64
					_, moved, _ := strings.Cut(d.Notes()[0], "moved from ")
					if _, err := fmt.Sscanf(moved, "%d to %d", &from, &to); err != nil || from == 0 || from > quietListRV || to <= from {
						return false, fmt.Sprintf("the note %q does not go from quiet's RV at the intro (%d) on", d.Notes()[0], quietListRV)
					}
					switch q {
					case source.RealFIFO:
						if s.Queue.Added.Bookmark == 0 || !strings.Contains(d.Notes()[1], "Bookmark delta") {
							return false, fmt.Sprintf("the RealFIFO queued %d Bookmark deltas; note %q", s.Queue.Added.Bookmark, d.Notes()[1])
						}
					case source.DeltaFIFO:
						if s.Queue.Added.Bookmark != 0 || !strings.Contains(d.Notes()[1], "DeltaFIFO has no Bookmark delta") {
							return false, fmt.Sprintf("the DeltaFIFO queued %d Bookmark deltas; note %q", s.Queue.Added.Bookmark, d.Notes()[1])
						}
					}
					nobm := snapshotOf(t, d, "quiet-no-bookmarks").Reflector
					return nobm.WatchEvents == 0, fmt.Sprintf("quiet-no-bookmarks got %d watch events", nobm.WatchEvents)
				},
				"burst note": func(d *Demo) (bool, string) {
					w := d.watchWindow(cluster.Pods)
					quiet, nobm := informerRV(d, "quiet"), informerRV(d, "quiet-no-bookmarks")
					return quiet >= w.OldestRV && nobm < w.OldestRV,
						fmt.Sprintf("quiet at RV %d, quiet-no-bookmarks at RV %d, window %d–%d", quiet, nobm, w.OldestRV, w.NewestRV)
				},
				"drop": claimAll(func(d *Demo) (bool, string) {
					quiet := snapshotOf(t, d, "quiet").Reflector
					return quiet.Relists == 0 && quiet.Watches >= 2 && quiet.WatchOpen,
						fmt.Sprintf("quiet: %d relists, %d watches, open %v", quiet.Relists, quiet.Watches, quiet.WatchOpen)
				}, claimRewatchedFromLastBookmark("quiet")),
				"relisted": claimAll(func(d *Demo) (bool, string) {
					quiet, nobm := snapshotOf(t, d, "quiet").Reflector, snapshotOf(t, d, "quiet-no-bookmarks").Reflector
					return quiet.Lists == 1 && nobm.Relists == 1 && strings.Contains(nobm.LastError, "410"),
						fmt.Sprintf("quiet: %d lists; quiet-no-bookmarks: %d relists, last error %q", quiet.Lists, nobm.Relists, nobm.LastError)
				}, claimGoneThenRelisted("quiet-no-bookmarks")),
			})
			start(t, d)
			awaitStep(t, d, g, notes, "done")
			notes.check(t, "intro", "bookmarked", "burst", "burst note", "drop", "relisted")
			quiesce(t, d)
			assertConsistent(t, d)

			quiet, nobm := snapshotOf(t, d, "quiet").Reflector, snapshotOf(t, d, "quiet-no-bookmarks").Reflector
			// Bookmarks on: one LIST in the whole run.
			if quiet.Lists != 1 || quiet.Relists != 0 {
				t.Errorf("quiet: %d lists, %d relists; bookmarks should have spared it any relist", quiet.Lists, quiet.Relists)
			}
			if nobm.Relists != 1 || nobm.WatchErrors == 0 || !strings.Contains(nobm.LastError, "410") {
				t.Errorf("quiet-no-bookmarks: %d relists, %d watch errors, last %q; want a 410 and one relist", nobm.Relists, nobm.WatchErrors, nobm.LastError)
			}
			if quiet.ListStreamed != tc.watchList || nobm.ListStreamed {
				t.Errorf("lists streamed: quiet %v, quiet-no-bookmarks %v; with --watch-list %v only quiet streams", quiet.ListStreamed, nobm.ListStreamed, tc.watchList)
			}
			if p := snapshotOf(t, d, "pods").Reflector; p.Relists != 0 {
				t.Errorf("pods relisted %d times; it follows every event and should re-watch", p.Relists)
			}
		})
	}
}

// claimBookmarksSpedUp: a scenario that sends bookmarks faster than
// kube-apiserver says so in its note, and its server stage knows both
// paces (the Pipeline view draws "×60" from them).
func claimBookmarksSpedUp(d *Demo) (bool, string) {
	note := strings.Join(d.Notes(), " ")
	p := d.serverStats()["quiet"].Path
	return strings.Contains(note, "60× kube-apiserver v1.37's pace") && p.BookmarkEvery == time.Second && p.RealBookmarks == time.Minute,
		fmt.Sprintf("note %q; server bookmarks every %v, kube-apiserver's %v", note, p.BookmarkEvery, p.RealBookmarks)
}

// Scenarios that do not teach bookmarks send them at kube-apiserver
// v1.37's pace, about once a minute, and their notes say nothing of it.
func TestBookmarksAtKubePaceByDefault(t *testing.T) {
	t.Parallel()
	for _, name := range scenarioNames() {
		d, err := New(Config{Scenario: name, Seed: 1, Objects: 10, Rate: -1})
		if err != nil {
			t.Fatal(err)
		}
		for inf, st := range d.serverStats() {
			want := time.Minute
			if name == "bookmarks" || name == "watch-cache-window" {
				want = teachingBookmarks
			}
			if st.Path.BookmarkEvery != want {
				t.Errorf("%s/%s: bookmarks every %v, want %v", name, inf, st.Path.BookmarkEvery, want)
			}
		}
	}
}
