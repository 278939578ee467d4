package tui

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

func TestQueueReaderDetailShowsQueuedDeltas(t *testing.T) {
	src := newReaderSource()
	h := compareHarness(t, src, 80, 24)
	h.keys("2", "j", "j", "j", "j", "j")
	if len(src.QueueReads()) != 0 {
		t.Fatalf("the queue was read before a detail opened: %v", src.QueueReads())
	}
	h.keys("enter")
	if got, want := src.QueueReads(), []string{"pods-deltafifo default/web-9"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("opening read %v, want %v", got, want)
	}
	// The cache holds web-9 at 1999: the update is an update, and the
	// relist's tombstone deletes it.
	assertLinesInOrder(t, h.screen(), []string{
		"key default/web-9 · DeltaFIFO",
		"2 deltas in one row: #6 of 10, queued 14s ago",
		"now in the cache at resourceVersion 1999",
		"   N DELTA       OBJECT    IF POPPED NOW",
		"   1 Updated     RV 2020   Update, then OnUpdate",
		"   2 Deleted     tombstone Delete, then OnDelete(tombstone) to every listener",
		"                 ↳ DeletedFinalStateUnknown default/web-9, last known RV 2020",
	})

	// Every refresh re-reads while the detail is open, and only then.
	h.frames(2)
	if n := len(src.QueueReads()); n != 3 {
		t.Fatalf("%d reads after two more frames, want 3", n)
	}
	src.SetQueued("pods-deltafifo", "default/web-9", nil) // popped meanwhile
	h.frames(1)
	assertLinesInOrder(t, h.screen(), []string{"key default/web-9 · DeltaFIFO", "no longer queued: it was popped since you opened it"})
	h.keys("esc")
	h.frames(3)
	if n := len(src.QueueReads()); n != 4 {
		t.Fatalf("%d reads after closing the detail, want still 4", n)
	}
}

func TestQueueReaderDetailInCompareModeReadsEveryColumn(t *testing.T) {
	src := newReaderSource()
	h := compareHarness(t, src, 160, 48)
	h.keys("2", "enter")
	want := []string{"pods-deltafifo default/web-0", "pods-realfifo default/web-0"}
	if got := src.QueueReads(); !reflect.DeepEqual(got, want) {
		t.Fatalf("reads %v, want %v", got, want)
	}
	qv := h.m.views[viewQueue].(*queueView)
	for _, inf := range []string{"pods-deltafifo", "pods-realfifo"} {
		d := qv.detail.data[inf]
		if d == nil || !d.reader || len(d.deltas) != 30 || !d.present || d.rv != "1990" {
			t.Fatalf("%s detail data %+v, want 30 deltas and web-0 cached at 1990", inf, d)
		}
	}
	// A late answer for another key must not replace the open one.
	h.send(queueDetailMsg{key: "default/web-1", data: map[string]*detailData{"pods-deltafifo": {reader: true}}})
	if len(qv.detail.data["pods-deltafifo"].deltas) != 30 {
		t.Fatal("an answer for default/web-1 overwrote the detail of default/web-0")
	}
	if !strings.Contains(h.screen(), "30 rows: #1 #5 #8 #11 #14 … of 91, the oldest queued 15s ago") {
		t.Fatalf("the RealFIFO column does not place web-0's rows:\n%s", h.screen())
	}
}

func TestQueueDetailOfAKeylessRow(t *testing.T) {
	src := newReaderSource()
	h := compareHarness(t, src, 160, 48)
	h.keys(":", "r", "e", "a", "l", "enter", "2", "j", "j", "j", "enter")
	qv := h.m.views[viewQueue].(*queueView)
	if qv.detail == nil || qv.detail.key != "" || !reflect.DeepEqual(qv.detail.types, []cache.DeltaType{cache.Bookmark}) {
		t.Fatalf("enter on the bookmark row opened %+v", qv.detail)
	}
	// A keyless row is the current queue's alone, even in compare mode.
	if got := src.QueueReads(); !reflect.DeepEqual(got, []string{"pods-realfifo "}) {
		t.Fatalf("reads %q, want the RealFIFO's keyless items only", got)
	}
	assertLinesInOrder(t, h.screen(), []string{
		"(Bookmark) · a whole-store item: it has no key · RealFIFO",
		"queued as row #4 of 91, 14s ago",
		"IF POPPED NOW",
		"Record the resourceVersion in the store; no listener is notified",
		"whole-store items queued, oldest first:",
		"   1  Bookmark    RV 2002",
	})
}

func TestPredictDeltaFollowsResourceVersions(t *testing.T) {
	pod := func(rv string) *corev1.Pod { return comparePod("web-0", rv) }
	steps := []struct {
		d    cache.Delta
		want string
	}{
		{cache.Delta{Type: cache.Added, Object: pod("10")}, "Add, then OnAdd"},
		{cache.Delta{Type: cache.Added, Object: pod("11")}, "Update, then OnUpdate"}, // Added on a cached key
		{cache.Delta{Type: cache.Replaced, Object: pod("11")}, "Update, then OnUpdate as a resync (resourceVersion unchanged): only listeners with a resync due"},
		{cache.Delta{Type: cache.Sync, Object: pod("11")}, "Update, then OnUpdate as a resync (resourceVersion unchanged): only listeners with a resync due"},
		{cache.Delta{Type: cache.Updated, Object: pod("12")}, "Update, then OnUpdate"},
		{cache.Delta{Type: cache.Deleted, Object: pod("12")}, "Delete, then OnDelete to every listener"},
		{cache.Delta{Type: cache.Deleted, Object: cache.DeletedFinalStateUnknown{Key: "default/web-0"}}, "Delete, then OnDelete(tombstone) to every listener"}, // deleting an absent key still notifies
		{cache.Delta{Type: cache.Sync, Object: "no metadata"}, "Add, then OnAdd"},
		{cache.Delta{Type: cache.Sync, Object: "no metadata"}, "Update, then OnUpdate as a resync: only listeners with a resync due"}, // falls back to the type
		{cache.Delta{Type: cache.Bookmark, Object: cache.BookmarkInfo{ResourceVersion: "13"}}, "Record the resourceVersion in the store; no listener is notified"},
	}
	var ks keyState
	for i, s := range steps {
		if got := predictDelta(s.d, &ks); got != s.want {
			t.Errorf("step %d (%s): %q, want %q", i, s.d.Type, got, s.want)
		}
	}
}

func TestDescribeDeltaObject(t *testing.T) {
	cases := []struct {
		obj        any
		cell, full string
	}{
		{comparePod("web-0", "7"), "RV 7", ""},
		{cache.DeletedFinalStateUnknown{Key: "default/web-0", Obj: comparePod("web-0", "7")}, "tombstone", "DeletedFinalStateUnknown default/web-0, last known RV 7"},
		{&cache.DeletedFinalStateUnknown{Key: "default/gone"}, "tombstone", "DeletedFinalStateUnknown default/gone"},
		{cache.ReplacedAllInfo{ResourceVersion: "900", Objects: []any{comparePod("a", "1"), comparePod("b", "2")}}, "2 objects at RV 900", ""},
		{cache.SyncAllInfo{}, "every cached object", ""},
		{cache.BookmarkInfo{ResourceVersion: "901"}, "RV 901", ""},
		{42, "a int", ""},
	}
	for _, tc := range cases {
		cell, full := describeDeltaObject(tc.obj)
		if cell != tc.cell || full != tc.full {
			t.Errorf("describeDeltaObject(%T) = %q, %q; want %q, %q", tc.obj, cell, full, tc.cell, tc.full)
		}
	}
}
