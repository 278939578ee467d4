package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// Sync notifications (resync, unchanged resourceVersion) reach only the
// listeners whose resync is due; a listener with no resync period gets none.
func TestInformerResyncOnlyToDueListeners(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel() // each waits for the reflector's one-second resync
			src := newTestSource(t)
			src.Add(pod("a"))
			// As in client-go, an informer built with no resync period
			// never resyncs, whatever its handlers ask for.
			inf := newTestInformer(src, kind, time.Second)
			syncing := &recorder{}
			quiet := &recorder{}
			if _, err := inf.AddEventHandlerWithResyncPeriod(syncing, time.Second); err != nil {
				t.Fatal(err)
			}
			if _, err := inf.AddEventHandlerWithResyncPeriod(quiet, 0); err != nil {
				t.Fatal(err)
			}
			runInformer(t, inf)
			waitfor.True(t, "a resync", func() bool { return syncing.len() >= 2 })
			got := syncing.snapshot()[1]
			if want := (call{Kind: "update", Key: "default/a", OldRV: "1", RV: "1"}); got != want {
				t.Fatalf("resync delivered %v, want %v", got, want)
			}
			if n := quiet.len(); n != 1 {
				t.Fatalf("listener without resync got %d callbacks, want only its initial add: %v", n, quiet.snapshot())
			}
			// The recorder saw the resync as it started; the listener counts
			// it once the handler returned.
			waitfor.True(t, "the resync delivery counted", func() bool { return inf.Snapshot().Listeners[0].Delivered.Sync > 0 })
			snap := inf.Snapshot()
			if snap.Reflector.Resyncs == 0 {
				t.Fatal("no resync was counted")
			}
			if snap.Listeners[1].Delivered.Sync != 0 {
				t.Fatalf("sync deliveries: %+v", snap.Listeners)
			}
		})
	}
}

// A handler's resync period is raised to the one-second minimum, and a
// period shorter than the informer's check period speeds up the check when
// the informer has not started yet.
func TestInformerResyncPeriods(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 10*time.Second)
	if _, err := inf.AddEventHandlerWithResyncPeriod(&recorder{}, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if inf.resyncCheckPeriod != time.Second {
		t.Fatalf("check period = %v, want 1s", inf.resyncCheckPeriod)
	}
	st := inf.Snapshot().Listeners[0]
	if st.ResyncPeriod != time.Second {
		t.Fatalf("listener resync period = %v, want 1s", st.ResyncPeriod)
	}
	if _, err := inf.AddEventHandler(&recorder{}); err != nil {
		t.Fatal(err)
	}
	if st := inf.Snapshot().Listeners[1]; st.ResyncPeriod != 10*time.Second {
		t.Fatalf("default-period listener resync = %v, want 10s", st.ResyncPeriod)
	}
}

// An informer without a resync period does not resync, even for a handler
// that asks for one (client-go logs a warning and does the same).
func TestInformerNoResyncWithoutInformerPeriod(t *testing.T) {
	src := newTestSource(t)
	inf := newTestInformer(src, RealFIFO, 0)
	if _, err := inf.AddEventHandlerWithOptions(&recorder{}, cache.HandlerOptions{ResyncPeriod: ptrTo(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if st := inf.Snapshot().Listeners[0]; st.ResyncPeriod != 0 {
		t.Fatalf("resync period = %v, want 0", st.ResyncPeriod)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A forced resync leaves the processor as client-go would: on an informer
// without a resync period (no reflector timer in client-go) it refuses, and
// the listener keeps taking the syncs a relist delivers for unchanged
// objects, relist after relist, exactly as client-go's informer does.
func TestForcedResyncKeepsRelistSyncsLikeClientGo(t *testing.T) {
	src := newTestSource(t)
	for _, name := range []string{"a", "b", "gone1", "gone2"} {
		src.Add(pod(name))
	}
	ours := newTestInformer(src, RealFIFO, 0)
	ourRec, refRec := &recorder{}, &recorder{}
	if _, err := ours.AddEventHandler(ourRec); err != nil {
		t.Fatal(err)
	}
	ref, _ := referenceInformer(t, src, RealFIFO, refRec)
	runInformer(t, ours)
	runInformer(t, ref)
	waitfor.True(t, "both informers to sync", func() bool { return ours.HasSynced() && ref.HasSynced() })

	syncs := func(r *recorder) int {
		n := 0
		for _, c := range r.snapshot() {
			if c.Kind == "update" && c.OldRV == c.RV {
				n++
			}
		}
		return n
	}
	// A delete the watch never carries, then a broken watch: the re-watch
	// gets 410 Gone and both relist, replaying what is left unchanged.
	relist := func(gone string, want int) {
		t.Helper()
		src.DeleteDropWatch(pod(gone))
		src.ResetWatch()
		waitfor.True(t, fmt.Sprintf("%d relist syncs each", want), func() bool { return syncs(ourRec) >= want && syncs(refRec) >= want })
	}
	relist("gone1", 3) // a, b, gone2
	forced := ours.Resync()
	relist("gone2", 5) // a, b
	waitfor.True(t, "both to see the second tombstone", func() bool {
		return reflect.DeepEqual(perKey(ourRec.snapshot()), perKey(refRec.snapshot()))
	})
	if got, want := syncs(ourRec), syncs(refRec); got != want {
		t.Fatalf("ours got %d syncs over two relists, client-go %d", got, want)
	}
	if forced == nil || !strings.Contains(forced.Error(), "no resync period") {
		t.Fatalf("forced resync on an informer without a resync period: %v, want a refusal saying why", forced)
	}
}

// With a resync period, a forced resync reaches every listener that has a
// period, whether or not its time had come, and no listener without one.
func TestForcedResyncReachesListenersWithAPeriod(t *testing.T) {
	src := newTestSource(t)
	src.Add(pod("a"))
	inf := newTestInformer(src, DeltaFIFO, time.Hour) // the timer never fires during the test
	periodic, quiet := &recorder{}, &recorder{}
	if _, err := inf.AddEventHandlerWithResyncPeriod(periodic, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandlerWithResyncPeriod(quiet, 0); err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	waitfor.True(t, "the initial adds", func() bool { return periodic.len() == 1 && quiet.len() == 1 })
	if err := inf.Resync(); err != nil {
		t.Fatal(err)
	}
	waitDelivered(t, inf, 0, 2)
	if got, want := periodic.snapshot()[1], (call{Kind: "update", Key: "default/a", OldRV: "1", RV: "1"}); got != want {
		t.Fatalf("forced resync delivered %v, want %v", got, want)
	}
	if err := inf.Resync(); err != nil { // due again at once: forcing does not wait for the period
		t.Fatal(err)
	}
	waitDelivered(t, inf, 0, 3)
	if n := quiet.len(); n != 1 {
		t.Fatalf("listener without a resync period got %v", quiet.snapshot())
	}
}
