package cluster

import (
	"testing"

	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// These tests drive the server with client-go's real Reflector, the way the
// engine will, and check both the store it builds and the requests it made.

func populated(t *testing.T, opts Options, resource string, n int) *Cluster {
	t.Helper()
	c := New(opts)
	if err := c.Populate(resource, n); err != nil {
		t.Fatal(err)
	}
	return c
}

func stepAndConverge(t *testing.T, c *Cluster, wl *Workload, n int, resource string, s cache.Store) {
	t.Helper()
	wl.Step(n)
	waitConverged(t, c, resource, s, nil)
}

func TestReflectorListsInPagesThenWatches(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	c := populated(t, Options{Seed: 20}, Pods, 1200)
	r, s := runReflector(t, mustLW(t, c, Pods, Selector{}), example(t, c, Pods))
	waitSynced(t, r)
	waitConverged(t, c, Pods, s, nil)
	stepAndConverge(t, c, NewWorkload(c, WorkloadOptions{Seed: 20, Resources: []string{Pods}}), 200, Pods, s)

	// One LIST in three 500-item pages, no streaming attempt, one watch.
	st := c.Stats()
	if st.Lists != 1 || st.ListPages != 3 || st.WatchListStreams != 0 || st.Rejected != 0 || st.Watches != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestReflectorRewatchesAfterDroppedWatchesWithoutRelisting(t *testing.T) {
	c := populated(t, Options{Seed: 21}, Pods, 50)
	wl := NewWorkload(c, WorkloadOptions{Seed: 21, Resources: []string{Pods}})
	_, s := runReflector(t, mustLW(t, c, Pods, Selector{}), example(t, c, Pods))
	waitConverged(t, c, Pods, s, nil)
	// Events on the stream first: a stream closed within a second with no
	// events is a "very short watch", which makes a reflector relist.
	stepAndConverge(t, c, wl, 5, Pods, s)
	for range 3 {
		c.DropWatches()
		stepAndConverge(t, c, wl, 10, Pods, s)
	}
	st := c.Stats()
	if st.Lists != 1 || st.Watches != 4 || st.WatchesDropped != 3 || st.Expired != 0 {
		t.Fatalf("want 1 list, 4 watches, 3 dropped, no 410; stats %+v", st)
	}
}

func TestReflectorRelistsWhenHistoryExpiresDuringADroppedWatch(t *testing.T) {
	c := populated(t, Options{Seed: 22}, Pods, 60)
	wl := NewWorkload(c, WorkloadOptions{Seed: 22, Resources: []string{Pods}})
	_, s := runReflector(t, mustLW(t, c, Pods, Selector{}), example(t, c, Pods))
	waitConverged(t, c, Pods, s, nil)
	stepAndConverge(t, c, wl, 3, Pods, s)

	c.SetAvailable(false)
	waitfor.True(t, "the reflector to retry its watch", func() bool { return c.Stats().Refused >= 2 })
	for _, key := range c.Keys(Pods)[:10] {
		if _, err := c.Delete(Pods, key); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateRandom(Pods, ""); err != nil {
		t.Fatal(err)
	}
	c.ExpireHistory()
	c.SetAvailable(true)
	waitConverged(t, c, Pods, s, nil)

	// The resumed watch got 410, then one relist (not paginated: 60 pods)
	// at the last seen version, served as not-older-than.
	if st := c.Stats(); st.Lists != 2 || st.Expired != 1 {
		t.Fatalf("want 2 lists and one 410; stats %+v", st)
	}
}

func TestReflectorPaginatedRelistFallsBackToConsistentList(t *testing.T) {
	c := populated(t, Options{Seed: 23}, Pods, 1200)
	wl := NewWorkload(c, WorkloadOptions{Seed: 23, Resources: []string{Pods}})
	_, s := runReflector(t, mustLW(t, c, Pods, Selector{}), example(t, c, Pods))
	waitConverged(t, c, Pods, s, nil)
	stepAndConverge(t, c, wl, 3, Pods, s)

	c.ExpireHistory()
	stepAndConverge(t, c, wl, 20, Pods, s)
	// The first list was paginated, so the reflector relists in pages at
	// its last version: an exact read of a compacted version, 410. It then
	// lists at "" (a consistent read), which succeeds.
	if st := c.Stats(); st.Lists != 2 || st.ListPages != 6 || st.Expired != 2 {
		t.Fatalf("want 2 lists of 3 pages and two 410s; stats %+v", st)
	}
}

func TestReflectorRecoversAfterServerUnavailable(t *testing.T) {
	c := populated(t, Options{Seed: 24}, ConfigMaps, 40)
	wl := NewWorkload(c, WorkloadOptions{Seed: 24, Resources: []string{ConfigMaps}})
	_, s := runReflector(t, mustLW(t, c, ConfigMaps, Selector{}), example(t, c, ConfigMaps))
	waitConverged(t, c, ConfigMaps, s, nil)
	stepAndConverge(t, c, wl, 3, ConfigMaps, s)

	c.SetAvailable(false)
	waitfor.True(t, "the reflector to retry", func() bool { return c.Stats().Refused >= 3 })
	wl.Step(20)
	c.SetAvailable(true)
	waitConverged(t, c, ConfigMaps, s, nil)
	// Connection refused is retried as a watch from the last version:
	// no relist and no 410.
	if st := c.Stats(); st.Lists != 1 || st.Expired != 0 {
		t.Fatalf("want 1 list, no 410; stats %+v", st)
	}
}

func TestReflectorStreamsTheInitialListWhenWatchListIsServed(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	c := populated(t, Options{Seed: 25, WatchList: true}, Pods, 300)
	wl := NewWorkload(c, WorkloadOptions{Seed: 25, Resources: []string{Pods}})
	r, s := runReflector(t, mustLW(t, c, Pods, Selector{}), example(t, c, Pods))
	waitSynced(t, r)
	waitConverged(t, c, Pods, s, nil)
	stepAndConverge(t, c, wl, 50, Pods, s)
	if st := c.Stats(); st.Lists != 0 || st.WatchListStreams != 1 || st.Watches != 1 {
		t.Fatalf("want a single streaming watch and no LIST; stats %+v", st)
	}
	// After a 410 the reflector streams again, not-older-than its version.
	c.ExpireHistory()
	stepAndConverge(t, c, wl, 20, Pods, s)
	if st := c.Stats(); st.Lists != 0 || st.WatchListStreams != 2 || st.Expired != 1 {
		t.Fatalf("want a second stream after the 410 and still no LIST; stats %+v", st)
	}
}

func TestReflectorFallsBackToListWithoutStalling(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	for _, tc := range []struct {
		name     string
		wrap     func(*ListerWatcher) cache.ListerWatcher
		rejected uint64
	}{
		// The reflector reads IsWatchListSemanticsUnSupported and never
		// tries to stream.
		{"capability reported", func(lw *ListerWatcher) cache.ListerWatcher { return lw }, 0},
		// A wrapper hides the method: the reflector tries to stream, gets
		// the 422 of a server without WatchList and LISTs at once.
		{"capability hidden", func(lw *ListerWatcher) cache.ListerWatcher { return struct{ cache.ListerWatcher }{lw} }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := populated(t, Options{Seed: 26}, Deployments, 80)
			r, s := runReflector(t, tc.wrap(mustLW(t, c, Deployments, Selector{})), example(t, c, Deployments))
			waitSynced(t, r) // bounded: a stalled reflector fails here
			waitConverged(t, c, Deployments, s, nil)
			if st := c.Stats(); st.Lists != 1 || st.Rejected != tc.rejected || st.WatchListStreams != 0 || st.Watches != 1 {
				t.Fatalf("want 1 list, %d rejected stream, 1 watch; stats %+v", tc.rejected, st)
			}
		})
	}
}

func TestReflectorWithSelectorSeesOnlyItsSlice(t *testing.T) {
	c := populated(t, Options{Seed: 27}, Pods, 300)
	wl := NewWorkload(c, WorkloadOptions{Seed: 27, Resources: []string{Pods}})
	lw := mustLW(t, c, Pods, Selector{Namespace: "payments", LabelSelector: "track=stable"})
	_, s := runReflector(t, lw, example(t, c, Pods))
	waitConverged(t, c, Pods, s, &lw.filter)
	for range 5 {
		wl.Step(100) // updates flip pods between stable and canary
		waitConverged(t, c, Pods, s, &lw.filter)
	}
	if n := len(s.List()); n == 0 || n == c.Len(Pods) {
		t.Fatalf("selector kept %d of %d pods; the test proves nothing", n, c.Len(Pods))
	}
}
