package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

// freshnessOf reads the observer's figures as source's model does: the
// two share their JSON, which is how the adapter's tests pin them too.
func freshnessOf(t *testing.T, r ReflectorStats, now time.Time) source.Freshness {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m source.Reflector
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return source.FreshnessOf(source.Informer{Started: true, Reflector: m}, now)
}

// A watch's freshness follows what arrives: the open, events (dated by the
// next look), bookmarks; an open watch with nothing past its longest timeout
// is silent, one that cannot be reopened after source.SilentAfter, and
// anything arriving clears that.
func TestFreshness(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	src := newTestSource(t)
	o := instr.NewObservedListerWatcher(src, "pods", instr.NewRing(64))
	o.SetClock(func() time.Time { return clock })
	at := func(d time.Duration) time.Time { clock = t0.Add(d); return clock }
	fresh := func(now time.Time) source.Freshness {
		return freshnessOf(t, o.Stats(now), now)
	}
	secs := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}

	if f := fresh(at(0)); f.Silent || f.LastEventAgeSeconds != nil || f.WatchAgeSeconds != nil {
		t.Fatalf("before any watch: %+v, want nothing known and not silent", f)
	}
	w, err := o.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	o.StoreCall(watch.Added, pod("a"))
	at(3 * time.Second)
	o.Upkeep(clock) // the upkeep tick after the event dates it
	at(10 * time.Second)
	o.Bookmarked()
	f := fresh(at(20 * time.Second))
	if got := [3]float64{secs(f.LastEventAgeSeconds), secs(f.LastBookmarkAgeSeconds), secs(f.WatchAgeSeconds)}; got != [3]float64{17, 10, 20} {
		t.Fatalf("event, bookmark, watch ages %v, want [17 10 20]", got)
	}
	if f.Silent || f.WatchRestarts != 0 {
		t.Fatalf("fresh watch: %+v", f)
	}
	// An open watch owes nothing before its timeout, a bookmark seen or not.
	if f := fresh(at(10*time.Second + source.QuietWatchSilentAfter)); f.Silent {
		t.Fatalf("exactly source.QuietWatchSilentAfter since the bookmark: silent, want not yet")
	}
	f = fresh(at(11*time.Second + source.QuietWatchSilentAfter))
	if !f.Silent || f.QuietSeconds != source.QuietWatchSilentAfter.Seconds()+1 {
		t.Fatalf("1 s past source.QuietWatchSilentAfter: silent %t quiet %vs, want silent for %vs", f.Silent, f.QuietSeconds, source.QuietWatchSilentAfter.Seconds()+1)
	}
	// A watch the reflector re-opens is the server answering again.
	w2, err := o.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	reopened := clock
	if f := fresh(clock); f.Silent || f.WatchRestarts != 1 {
		t.Fatalf("after a new watch: %+v, want not silent, 1 restart", f)
	}
	// Quiet since it opened, it is owed no bookmark (a resource nobody
	// writes gets none) until its timeout.
	if f := fresh(reopened.Add(source.SilentAfter + time.Second)); f.Silent || f.SilentAfterSeconds != source.QuietWatchSilentAfter.Seconds() {
		t.Fatalf("a watch quiet since it opened, after source.SilentAfter: %+v, want not silent, the quiet-watch threshold", f)
	}
	if f := fresh(reopened.Add(source.QuietWatchSilentAfter + time.Second)); !f.Silent {
		t.Fatalf("a watch quiet past its longest timeout: %+v, want silent", f)
	}
	// With no watch open (it cannot be re-established), source.SilentAfter applies.
	w2.Stop()
	if f := fresh(reopened.Add(source.SilentAfter + time.Second)); !f.Silent || f.SilentAfterSeconds != source.SilentAfter.Seconds() {
		t.Fatalf("no watch open for source.SilentAfter: %+v, want silent", f)
	}
}

// The running informer dates events and bookmarks in its snapshots.
func TestSnapshotFreshness(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			inf := newTestInformer(src, kind, 0)
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)
			waitfor.True(t, "the watch", func() bool { return inf.Snapshot().Reflector.WatchOpen })
			before := time.Now()
			src.Add(pod("a"))
			waitfor.True(t, "the event", func() bool { return inf.Snapshot().Reflector.WatchAdded == 1 })
			s := inf.Snapshot()
			if s.Reflector.LastEventTime.Before(before) || s.Reflector.LastHeard.Before(s.Reflector.LastEventTime) {
				t.Fatalf("event at or after %v: last event %v, last heard %v", before, s.Reflector.LastEventTime, s.Reflector.LastHeard)
			}
			if f := freshnessOf(t, s.Reflector, s.Taken); f.Silent || f.LastEventAgeSeconds == nil || f.WatchAgeSeconds == nil {
				t.Fatalf("freshness of a live informer: %+v", f)
			}
		})
	}
}

// A handler blocked in a callback falls behind by wall time: the running
// informer's upkeep dates its oldest unhandled notification, that date
// stays put while it is blocked, so the age grows; once the handler drains
// its backlog it is 0 behind.
func TestListenerFallsBehindAndCatchesUp(t *testing.T) {
	src := newTestSource(t)
	src.Add(pod("a"))
	inf := newTestInformer(src, RealFIFO, 0)
	release := make(chan struct{})
	rec := &recorder{block: release}
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	src.Add(pod("b"))
	var since time.Time
	waitfor.True(t, "the upkeep dating the blocked handler's backlog", func() bool {
		since = inf.Snapshot().Listeners[0].OldestPendingSince
		return !since.IsZero()
	})
	first := inf.Snapshot()
	waitfor.True(t, "another upkeep tick", func() bool { return time.Since(since) > 2*upkeepEvery })
	later := inf.Snapshot()
	l1, l2 := first.Listeners[0], later.Listeners[0]
	if !l2.OldestPendingSince.Equal(since) || l2.OldestPendingAge(later.Taken) <= l1.OldestPendingAge(first.Taken) {
		t.Fatalf("blocked handler: %v then %v behind (oldest dated %v then %v), want growing from a fixed date",
			l1.OldestPendingAge(first.Taken), l2.OldestPendingAge(later.Taken), since, l2.OldestPendingSince)
	}
	close(release)
	waitDelivered(t, inf, 0, 2)
	if s := inf.Snapshot(); s.Listeners[0].OldestPendingAge(s.Taken) != 0 {
		t.Fatalf("drained handler is %v behind, want 0", s.Listeners[0].OldestPendingAge(s.Taken))
	}
}
