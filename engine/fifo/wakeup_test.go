package fifo

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Helpers for the tests of blocking pops. Their 10 s bounds only turn a
// lost wake-up into a failure instead of a test that hangs until the
// suite's timeout; they measure no speed.

// waitForBlockedPops waits until n goroutines are parked in a condition
// wait inside the function named by frame, e.g. "(*DeltaFIFO).Pop", so
// that what follows happens to pops that are really waiting.
func waitForBlockedPops(t testing.TB, frame string, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			blocked := 0
			for _, g := range strings.Split(string(buf), "\n\n") {
				if strings.Contains(g, "sync.(*Cond).Wait") && strings.Contains(g, frame) {
					blocked++
				}
			}
			return blocked >= n, nil
		})
	if err != nil {
		t.Fatalf("fewer than %d goroutines blocked in %s: %v", n, frame, err)
	}
}

// awaitWakeUp receives what a goroutine blocked in a pop reports once it
// is woken.
func awaitWakeUp[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the blocked pop was not woken", what)
		panic("unreachable")
	}
}
