package cluster

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// The schedule is kube-apiserver v1.37's cacheWatcher rule: a minute on,
// but no later than 2s before the watch's deadline, and none once that
// moment has passed.
func TestNextBookmark(t *testing.T) {
	start := fixedTime
	deadline := start.Add(5 * time.Minute)
	for _, tc := range []struct {
		name     string
		now      time.Time
		deadline time.Time
		want     time.Time
		ok       bool
	}{
		{"a minute on", start, deadline, start.Add(time.Minute), true},
		{"no deadline", start, time.Time{}, start.Add(time.Minute), true},
		{"capped 2s before the deadline", start.Add(4*time.Minute + 30*time.Second), deadline, deadline.Add(-2 * time.Second), true},
		{"just before the last one", deadline.Add(-3 * time.Second), deadline, deadline.Add(-2 * time.Second), true},
		{"the last one just sent", deadline.Add(-2 * time.Second), deadline, time.Time{}, false},
		{"past the last one", deadline.Add(-time.Second), deadline, time.Time{}, false},
	} {
		got, ok := nextBookmark(tc.now, tc.deadline, DefaultBookmarkFrequency)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: nextBookmark = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// By default a watch that asks for bookmarks gets one a minute after it
// opened and every minute after, and a last one 2s before its timeout;
// nothing in between, however much the revision moves.
func TestBookmarkCadenceDefault(t *testing.T) {
	clk := clocktesting.NewFakeClock(fixedTime)
	c := New(Options{Seed: 21, Clock: clk, WatchTimeout: 3 * time.Minute})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion()), AllowWatchBookmarks: true})
	waitfor.True(t, "the stream's bookmark timer", clk.HasWaiters)
	// Other kinds' writes move the revision: a bookmark would have news.
	if _, err := c.CreateRandom(Secrets, ""); err != nil {
		t.Fatal(err)
	}
	step := func(d time.Duration) {
		t.Helper()
		clk.Step(d)
	}
	noEvent := func(when string) {
		t.Helper()
		// A write to this resource is the marker: the stream delivers in
		// order, so anything queued before it would come first.
		obj, err := c.CreateRandom(Pods, "")
		if err != nil {
			t.Fatal(err)
		}
		if ev := next(t, w); ev.Type != watch.Added || keyOf(ev.Object) != keyOf(obj) {
			t.Fatalf("%s: got %s %s, want no bookmark before the ADDED marker", when, ev.Type, keyOf(ev.Object))
		}
	}
	bookmark := func(when string) {
		t.Helper()
		if ev := next(t, w); ev.Type != watch.Bookmark {
			t.Fatalf("%s: got %s, want a BOOKMARK", when, ev.Type)
		}
		waitfor.True(t, "the next bookmark scheduled", clk.HasWaiters)
	}
	step(59 * time.Second)
	noEvent("at 59s")
	step(time.Second)
	bookmark("at 1m")
	step(59 * time.Second)
	noEvent("at 1m59s")
	step(time.Second)
	bookmark("at 2m")
	// The next minute would be 3m, the deadline: the last one is at 2m58s.
	step(57 * time.Second)
	noEvent("at 2m57s")
	step(time.Second)
	if ev := next(t, w); ev.Type != watch.Bookmark {
		t.Fatalf("at 2m58s: got %s, want the last BOOKMARK before the timeout", ev.Type)
	}
	waitfor.True(t, "no timer left after the last bookmark", func() bool { return !clk.HasWaiters() })
}
