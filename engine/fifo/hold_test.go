package fifo

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
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
			if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true,
				func(context.Context) (bool, error) { return f.PopWaiting(), nil }); err != nil {
				t.Fatalf("the pop never waited: %v", err)
			}
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
