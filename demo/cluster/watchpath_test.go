package cluster

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// Tests of the server's watch path: etcd → etcd3 watcher → watch cache →
// cacher's incoming channel → watcher buffers.

// A client that stops reading fills its buffer; the cacher's dispatch then
// waits for it, and the wait backs up through the cacher's incoming channel
// (its high-water mark at 100) and the etcd3 watcher's channels to etcd. Once the client reads again everything drains, in order, and
// nothing is lost.
func TestBackpressureReachesEtcdAndDrainsWithoutLoss(t *testing.T) {
	c := New(Options{Seed: 3, WatchBuffer: 2, StorageBuffer: 10, DispatchBudget: time.Hour})
	if err := c.Populate(Pods, 5); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	lw.SetClient("pods informer")
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion())})
	var want []change
	const updates = 200 // more than every buffer on the way holds
	for i := range updates {
		obj, err := c.Update(Pods, c.Keys(Pods)[i%5])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, change{watch.Modified, keyOf(obj), rvOf(obj)})
	}
	var p PathStats
	// Settled: the dispatch waits on the full watcher, and everything
	// behind it is full up to etcd.
	waitfor.True(t, "buffers to fill up to etcd", func() bool {
		p, _ = c.WatchPath(Pods)
		return p.CacherIncoming.Len == 100 && p.Outgoing.Len == 10 && p.Incoming.Len == 10 && p.EtcdPending > 0 &&
			len(p.Watchers) == 1 && p.Watchers[0].Blocked
	})
	// v1.37 keeps a high-water mark on the cacher's incoming channel only.
	if p.CacherIncoming.HighWater != 100 || p.Outgoing.HighWater != 0 || p.Incoming.HighWater != 0 {
		t.Fatalf("high-water marks: cacher incoming %d, etcd3 watcher %d/%d; want 100, none", p.CacherIncoming.HighWater, p.Incoming.HighWater, p.Outgoing.HighWater)
	}
	if len(p.Watchers) != 1 || !p.Watchers[0].Blocked || p.Watchers[0].Buffer.Len != 2 || p.Watchers[0].Client != "pods informer" {
		t.Fatalf("watchers = %+v, want one blocked with a full buffer of 2", p.Watchers)
	}
	var got []change
	for len(got) < len(want) {
		got = append(got, changeOf(nextNonBookmark(t, w)))
	}
	sameChanges(t, got, want)
	w.Stop()
	untilClosed(t, w)
	if s := c.Stats(); s.WatchesSlow != 0 {
		t.Fatalf("%d watchers terminated while the watch cache could wait", s.WatchesSlow)
	}
	// The dispatch counts an event once every watcher has it, which can be
	// just after the watcher passed it on.
	waitfor.True(t, "every event counted as dispatched", func() bool {
		p, _ = c.WatchPath(Pods)
		return p.Dispatched == updates+5
	})
	if p.Decoded != updates || p.Received != updates+5 || p.EtcdPending != 0 || p.Incoming.Len != 0 || p.Outgoing.Len != 0 || p.CacherIncoming.Len != 0 {
		t.Fatalf("after draining: %+v", p)
	}
}

// A watcher that does not make room within the dispatch budget is
// terminated; another watcher of the same resource keeps receiving every
// event, and the terminated one resumes from its last resourceVersion out of
// the watch cache's window.
func TestSlowWatcherIsTerminatedOthersGoOn(t *testing.T) {
	c := New(Options{Seed: 4, WatchBuffer: 3, DispatchBudget: 20 * time.Millisecond})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	from := c.ResourceVersion()
	slow := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(from)})
	fast := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(from)})
	var want []change
	var got []change
	for i := range 30 {
		obj, err := c.Update(Pods, c.Keys(Pods)[i%3])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, change{watch.Modified, keyOf(obj), rvOf(obj)})
		got = append(got, changeOf(nextNonBookmark(t, fast)))
	}
	sameChanges(t, got, want)
	waitfor.True(t, "the slow watcher to be terminated", func() bool { return c.Stats().WatchesSlow == 1 })
	var seen []change
	for _, ev := range untilClosed(t, slow) {
		seen = append(seen, changeOf(ev))
	}
	sameChanges(t, seen, want[:len(seen)])
	last := from
	if len(seen) > 0 {
		last = parseUint(t, seen[len(seen)-1].RV)
	}
	resumed := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(last)})
	var rest []change
	for len(seen)+len(rest) < len(want) {
		rest = append(rest, changeOf(nextNonBookmark(t, resumed)))
	}
	sameChanges(t, rest, want[len(seen):])
	resumed.Stop()
	fast.Stop()
	untilClosed(t, resumed)
	untilClosed(t, fast)
}

// The journey of an event says what each stage did with it.
func TestJourneyFollowsAnEventThroughTheStages(t *testing.T) {
	c := New(Options{Seed: 5, HistorySize: 50})
	if err := c.Populate(Pods, 2); err != nil {
		t.Fatal(err)
	}
	before := c.ResourceVersion()
	j, ok := c.Journey(Pods, "", before)
	if !ok || j.Decoded || !j.Appended || j.Watchers != 0 {
		t.Fatalf("unwatched write: %+v", j)
	}
	lw := mustLW(t, c, Pods, Selector{})
	a := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(before)})
	b := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(before)})
	obj, err := c.Update(Pods, c.Keys(Pods)[0])
	if err != nil {
		t.Fatal(err)
	}
	nextNonBookmark(t, a)
	nextNonBookmark(t, b)
	rv := parseUint(t, rvOf(obj))
	j, ok = c.Journey(Pods, "", rv)
	if !ok {
		t.Fatal("no journey for the update")
	}
	lines := strings.Join(j.Lines(), "\n")
	for _, want := range []string{
		"etcd revision " + rvOf(obj) + ": MODIFIED",
		"storage watcher decoded it (incoming 1/100)",
		"watch cache appended it (window 1–" + rvOf(obj) + ")",
		"dispatched to 2 watchers",
	} {
		if !strings.Contains(lines, want) {
			t.Fatalf("journey lacks %q:\n%s", want, lines)
		}
	}
	if _, ok := c.Journey(Pods, "", rv+100); ok {
		t.Fatal("a journey for a revision never written")
	}
	a.Stop()
	b.Stop()
	untilClosed(t, a)
	untilClosed(t, b)
}

// The watch cache counts an event dispatched once, however many watchers
// it goes to (none, too), as kube-apiserver's
// apiserver_watch_cache_events_dispatched_total does; the copies are each
// watcher's sent.
func TestDispatchedCountsEventsNotCopies(t *testing.T) {
	c := New(Options{Seed: 6})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.WatchPath(Pods); p.Received != 3 || p.Dispatched != 3 {
		t.Fatalf("3 writes with nobody watching: received %d, dispatched %d; want 3 and 3", p.Received, p.Dispatched)
	}
	lw := mustLW(t, c, Pods, Selector{})
	from := rvString(c.ResourceVersion())
	a := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: from})
	b := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: from})
	const updates = 10
	for i := range updates {
		if _, err := c.Update(Pods, c.Keys(Pods)[i%3]); err != nil {
			t.Fatal(err)
		}
	}
	for range updates {
		nextNonBookmark(t, a)
		nextNonBookmark(t, b)
	}
	var p PathStats
	waitfor.True(t, "every copy counted as sent and every event as dispatched", func() bool {
		p, _ = c.WatchPath(Pods)
		return p.Sent == 2*updates && p.Dispatched == 3+updates
	})
	if p.Received != 3+updates || p.Dispatched != 3+updates {
		t.Fatalf("%d updates to 2 watchers: received %d, dispatched %d; want %d each", updates, p.Received, p.Dispatched, 3+updates)
	}
	if len(p.Watchers) != 2 || p.Watchers[0].Sent != updates || p.Watchers[1].Sent != updates {
		t.Fatalf("watchers %+v, want 2 that were each sent %d", p.Watchers, updates)
	}
}

// A client whose watch was down gets what it missed out of the window when
// it watches again, and the journey it asks for says so; another client's
// journey of the same event does not.
func TestJourneyOfAnEventReplayedFromTheWindow(t *testing.T) {
	c := New(Options{Seed: 7, HistorySize: 50})
	if err := c.Populate(Pods, 2); err != nil {
		t.Fatal(err)
	}
	key := c.Keys(Pods)[0]
	pods, other := mustLW(t, c, Pods, Selector{}), mustLW(t, c, Pods, Selector{})
	pods.SetClient("pods")
	other.SetClient("other")
	lines := func(j Journey) string { return strings.Join(j.Lines(), "\n") }
	contains := func(what string, j Journey, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(lines(j), w) {
				t.Errorf("%s: the journey lacks %q:\n%s", what, w, lines(j))
			}
		}
	}

	// Written while nobody watched: it waits in the window until the
	// client watches from before it.
	before := c.ResourceVersion()
	obj, err := c.Update(Pods, key)
	if err != nil {
		t.Fatal(err)
	}
	rv := parseUint(t, rvOf(obj))
	if j, _ := c.Journey(Pods, "pods", rv); j.Replayed || strings.Contains(lines(j), "dispatched to") {
		t.Fatalf("not yet watched: %+v\n%s", j, lines(j))
	}
	w := mustWatch(t, pods, metav1.ListOptions{ResourceVersion: rvString(before)})
	if ev := nextNonBookmark(t, w); rvOf(ev.Object) != rvOf(obj) {
		t.Fatalf("the new watch got %s, want the update at %s", changeOf(ev), rvOf(obj))
	}
	j, _ := c.Journey(Pods, "pods", rv)
	if !j.Replayed || j.ReplayedFrom != before {
		t.Fatalf("journey %+v, want replayed from %d", j, before)
	}
	contains("written with no watch open", j, "no watch open: straight into the watch cache",
		"no watcher to dispatch it to: it waited in the window",
		"replayed from the window to the new watch from resourceVersion "+rvString(before))
	if j, _ := c.Journey(Pods, "other", rv); j.Replayed {
		t.Errorf("other never watched, yet its journey is replayed: %+v", j)
	}
	w.Stop()
	untilClosed(t, w)

	// Dispatched to other's watch while pods was away: pods gets it from
	// the window, other got it dispatched.
	ow := mustWatch(t, other, metav1.ListOptions{ResourceVersion: rvOf(obj)})
	obj, err = c.Update(Pods, key)
	if err != nil {
		t.Fatal(err)
	}
	nextNonBookmark(t, ow)
	rv = parseUint(t, rvOf(obj))
	w = mustWatch(t, pods, metav1.ListOptions{ResourceVersion: rvString(rv - 1)})
	nextNonBookmark(t, w)
	j, _ = c.Journey(Pods, "pods", rv)
	contains("dispatched to another client", j, "storage watcher decoded it", "dispatched to 1 watcher",
		"replayed from the window to the new watch from resourceVersion "+rvString(rv-1))
	if j, _ := c.Journey(Pods, "other", rv); j.Replayed || strings.Contains(lines(j), "replayed") {
		t.Errorf("other got the event dispatched, yet its journey says replayed:\n%s", lines(j))
	}
	w.Stop()
	ow.Stop()
	untilClosed(t, w)
	untilClosed(t, ow)
}

// The path's goroutines run only while someone watches or events are on
// their way.
func TestWatchPathStopsWhenIdle(t *testing.T) {
	c := New(Options{})
	lw := mustLW(t, c, Pods, Selector{})
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: "1"})
	running := func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.stores[kindPods()].path.run != nil
	}
	if !running() {
		t.Fatal("no path running for an open watch")
	}
	w.Stop()
	untilClosed(t, w)
	waitfor.True(t, "the path to stop", func() bool { return !running() })
}

func kindPods() *kind {
	k, err := lookupKind(Pods)
	if err != nil {
		panic(err)
	}
	return k
}

func parseUint(t testing.TB, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A client set to go without bookmarks gets none even though it asks, and
// one that keeps them gets them. Time is the point (ten bookmark intervals
// pass with none), so it passes on synctest's clock.
func TestClientWithoutBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(Options{BookmarkFrequency: 5 * time.Millisecond})
		quiet, with := mustLW(t, c, Pods, Selector{}), mustLW(t, c, Pods, Selector{})
		quiet.SetBookmarks(false)
		opts := metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true}
		wq, ww := mustWatch(t, quiet, opts), mustWatch(t, with, opts)
		// A write to another kind moves the revision past the watches' start,
		// so bookmarks have somewhere to go.
		if _, err := c.CreateRandom(Secrets, ""); err != nil {
			t.Fatal(err)
		}
		if ev := next(t, ww); ev.Type != watch.Bookmark {
			t.Fatalf("first event with bookmarks on = %s, want BOOKMARK", ev.Type)
		}
		time.Sleep(50 * time.Millisecond) // ten bookmark intervals, on the bubble's clock
		synctest.Wait()
		obj, err := c.CreateRandom(Pods, "")
		if err != nil {
			t.Fatal(err)
		}
		if ev := next(t, wq); ev.Type != watch.Added || keyOf(ev.Object) != keyOf(obj) {
			t.Fatalf("first event without bookmarks = %s %s, want the ADDED pod", ev.Type, keyOf(ev.Object))
		}
		wq.Stop()
		ww.Stop()
		untilClosed(t, wq)
		untilClosed(t, ww)
	})
}

// A watch from a resourceVersion the window no longer holds is answered,
// as v1.37's cacher does, by a stream holding one ERROR event and no
// watcher: the path counts it apart from the watchers while it is open.
func TestErrorOnlyStreamIsNotAWatcher(t *testing.T) {
	c := New(Options{Seed: 6})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	old := rvString(c.ResourceVersion())
	if _, err := c.Update(Pods, c.Keys(Pods)[0]); err != nil {
		t.Fatal(err)
	}
	c.ExpireHistory()
	w := mustWatch(t, mustLW(t, c, Pods, Selector{}), metav1.ListOptions{ResourceVersion: old})
	// Unread, the stream stays open on its ERROR event.
	if p, _ := c.WatchPath(Pods); p.ErrorStreams != 1 || len(p.Watchers) != 0 {
		t.Fatalf("%d error-only streams, %d watchers; want 1, none", p.ErrorStreams, len(p.Watchers))
	}
	if ev := next(t, w); ev.Type != watch.Error {
		t.Fatalf("first event %s, want ERROR", ev.Type)
	}
	untilClosed(t, w)
	waitfor.True(t, "the error stream to be counted closed", func() bool {
		p, _ := c.WatchPath(Pods)
		return p.ErrorStreams == 0
	})
}
