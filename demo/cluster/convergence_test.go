package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"
)

// TestRandomWorkloadWithFaultsKeepsReflectorsConverged runs a seeded random
// workload with random faults (dropped watches, compactions, outages,
// bursts that overrun small watch buffers and history) against real
// Reflectors, and checks after each sync point that every store holds
// exactly the server's objects.
func TestRandomWorkloadWithFaultsKeepsReflectorsConverged(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchList=%v", watchList), func(t *testing.T) {
			c := New(Options{Seed: 40, WatchList: watchList, HistorySize: 200, WatchBuffer: 64, BookmarkFrequency: 20 * time.Millisecond})
			for i, r := range c.Resources() {
				if err := c.Populate(r, []int{600, 100, 50, 30}[i]); err != nil {
					t.Fatal(err)
				}
			}
			type watched struct {
				resource string
				store    cache.Store
				filter   *filter
			}
			var all []watched
			for _, r := range c.Resources() {
				_, s := runReflector(t, mustLW(t, c, r, Selector{}), example(t, c, r))
				all = append(all, watched{r, s, nil})
			}
			lw := mustLW(t, c, Pods, Selector{Namespace: "payments", LabelSelector: "track=stable"})
			_, s := runReflector(t, lw, example(t, c, Pods))
			all = append(all, watched{Pods, s, &lw.filter})
			converge := func() {
				t.Helper()
				for _, w := range all {
					waitConverged(t, c, w.resource, w.store, w.filter)
				}
			}
			converge()

			wl := NewWorkload(c, WorkloadOptions{Seed: 41, MaxObjects: 800})
			rng := rand.New(rand.NewPCG(42, 0))
			faults := map[string]int{}
			for range 30 {
				wl.Step(1 + rng.IntN(150))
				switch rng.IntN(8) {
				case 0:
					faults["drop"]++
					c.DropWatches()
				case 1:
					faults["expire"]++
					c.ExpireHistory()
				case 2:
					faults["outage"]++
					c.SetAvailable(false)
					wl.Step(rng.IntN(100))
					c.SetAvailable(true)
				case 3:
					faults["burst"]++
					wl.Burst(rng.IntN(300))
				case 4:
					faults["sync"]++
					converge()
				}
			}
			converge()
			for _, f := range []string{"drop", "expire", "outage", "burst", "sync"} {
				if faults[f] == 0 {
					t.Fatalf("the seed never injected %q; faults %v", f, faults)
				}
			}
			st := c.Stats()
			t.Logf("faults %v; stats %+v", faults, st)
			if st.Expired == 0 || st.WatchesDropped == 0 {
				t.Fatalf("faults had no effect: %+v", st)
			}
		})
	}
}
