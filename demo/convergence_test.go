package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// TestConvergenceUnderFaults runs the steady scenario's four informers
// under a fast random workload while random faults hit them (dropped
// watches, expired history, an unreachable server, bursts, stalled and
// paused processing, listeners coming and going), then heals everything and
// checks that every cache equals the server and every listener agrees with
// its cache.
func TestConvergenceUnderFaults(t *testing.T) {
	t.Parallel()
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			t.Parallel()
			seed := int64(90 + q)
			d := newDemo(t, Config{Seed: seed, Queue: q, Objects: 60, Rate: 500, TimeScale: 0.001})
			holdSteps(d, "tour: listeners") // keep the tour's notes still
			start(t, d)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			if err := d.WaitSynced(ctx); err != nil {
				t.Fatal(err)
			}

			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			// Faults are spaced by workload progress, not by time.
			afterChanges := func(n uint64) {
				t.Helper()
				from := changes(d)
				waitfor.Seen(t, "workload progress", func() (bool, string) {
					return changes(d) >= from+n, fmt.Sprintf("%d of %d changes", changes(d)-from, n)
				})
			}
			expiries, outages, extra := 0, 0, 0
			var log []string
			for range 24 {
				afterChanges(uint64(20 + rng.IntN(60)))
				switch f := rng.IntN(8); {
				case f == 0 && expiries < 2:
					expiries++
					log = append(log, "expire")
					mustOK(t, d.ExpireHistory())
				case f == 1 && outages < 2:
					outages++
					log = append(log, "outage")
					d.SetServerAvailable(false)
					afterChanges(uint64(10 + rng.IntN(40)))
					d.SetServerAvailable(true)
				case f == 2:
					log = append(log, "burst")
					d.work.burst(50 + rng.IntN(150))
				case f == 3:
					inf := d.Informers()[rng.IntN(len(d.Informers()))]
					ls := d.Listeners(inf.Name())
					l := ls[rng.IntN(len(ls))]
					log = append(log, "toggle stall "+inf.Name()+"/"+l.Name())
					if _, err := d.ToggleStall(inf.Name(), l.Name()); err != nil {
						t.Fatal(err)
					}
				case f == 4:
					log = append(log, "pause")
					mustOK(t, d.SetPaused(true))
					afterChanges(uint64(10 + rng.IntN(40)))
					mustOK(t, d.SetPaused(false))
				case f == 5:
					extra++
					name := fmt.Sprintf("extra-%d", extra)
					log = append(log, "add "+name)
					_, err := d.AddListener("pods", local.ListenerSpec{Name: name, Delay: 0})
					mustOK(t, err)
				case f == 6 && extra > 0:
					name := fmt.Sprintf("extra-%d", extra)
					log = append(log, "remove "+name)
					if d.Listener("pods", name) != nil {
						mustOK(t, d.RemoveListener("pods", name))
					}
				default:
					log = append(log, "drop")
					mustOK(t, d.DropWatch())
				}
			}
			t.Logf("faults: %v", log)
			quiesce(t, d)
			assertConsistent(t, d)
			for _, s := range d.States() {
				t.Logf("%s: %d objects, lists %d, watches %d, events %d", s.Name, s.Store.Objects, s.Reflector.Lists, s.Reflector.Watches, s.Reflector.WatchEvents)
			}
		})
	}
}

func changes(d *Demo) uint64 {
	s := d.work.w.Stats()
	return s.Creates + s.Updates + s.Deletes
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
