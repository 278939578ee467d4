package fifo

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

// A pop that waited inside the empty queue asks the consumer's hold before
// taking what woke it: held, the item stays queued and the pop returns
// ErrHeld; a pop that finds items never asks.
func TestPopThatWaitedAsksTheHold(t *testing.T) {
	for name, f := range map[string]Instrumented{
		"RealFIFO":  NewRealFIFO(cache.RealFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc, AtomicEvents: true}),
		"DeltaFIFO": NewDeltaFIFO(cache.DeltaFIFOOptions{}),
	} {
		t.Run(name, func(t *testing.T) {
			var hold, asked atomic.Bool
			hold.Store(true)
			f.SetHoldAfterWait(func() bool { asked.Store(true); return hold.Load() })
			popped := make(chan error, 1)
			go func() {
				_, err := f.Pop(func(any, bool) error { return nil })
				popped <- err
			}()
			waitUntil(t, "the pop waiting", f.PopWaiting)
			if err := f.Add(dfObj("a", 1)); err != nil {
				t.Fatal(err)
			}
			if err := <-popped; !errors.Is(err, ErrHeld) {
				t.Fatalf("the waiting pop returned %v, want ErrHeld", err)
			}
			if d := f.Stats(0).Depth; d != 1 {
				t.Fatalf("depth %d after a held pop, want the item still queued", d)
			}
			asked.Store(false)
			if _, err := f.Pop(func(any, bool) error { return nil }); err != nil {
				t.Fatalf("a pop that found the item: %v", err)
			}
			if asked.Load() {
				t.Error("a pop that found an item asked the hold")
			}
		})
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
