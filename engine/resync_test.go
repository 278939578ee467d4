package engine

import (
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
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
			waitFor(t, "a resync", func() bool { return syncing.len() >= 2 })
			got := syncing.snapshot()[1]
			if want := (call{Kind: "update", Key: "default/a", OldRV: "1", RV: "1"}); got != want {
				t.Fatalf("resync delivered %v, want %v", got, want)
			}
			if n := quiet.len(); n != 1 {
				t.Fatalf("listener without resync got %d callbacks, want only its initial add: %v", n, quiet.snapshot())
			}
			// The recorder saw the resync as it started; the listener counts
			// it once the handler returned.
			waitFor(t, "the resync delivery counted", func() bool { return inf.Snapshot().Listeners[0].Delivered.Sync > 0 })
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
