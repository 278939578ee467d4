// Package waitfor is how the tests of both modules wait for something
// another goroutine or process will do: one poll, over apimachinery's
// wait.PollUntilContextTimeout, that fails the test when its time is up,
// saying what it waited for and what it saw last. A hand-written loop
// around time.Sleep can give up silently or spin; this cannot.
//
// The bound decides only when a test that is going to fail says so: it
// measures no speed, so it is generous. Where time itself is the point (a
// timer, a backoff, a period), use testing/synctest instead, whose clock
// is the test's.
package waitfor

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

const (
	// Timeout bounds True and Seen.
	Timeout = 30 * time.Second
	// Interval is how often a condition is polled.
	Interval = 5 * time.Millisecond
)

// True polls cond until it holds; when Timeout passes first it fails tb
// with what it waited for, e.g. "the informer to sync".
func True(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	poll(tb, Interval, Timeout, what, cond, func() string { return "" })
}

// Seen polls cond until it reports done; when Timeout passes first it
// fails tb with what it waited for and what cond last said it saw.
func Seen(tb testing.TB, what string, cond func() (done bool, seen string)) {
	tb.Helper()
	Within(tb, Timeout, what, cond)
}

// Until polls cond until it holds; when Timeout passes first it fails tb
// with what it waited for and what seen says then (seen is called once,
// on failure, so it may be costly).
func Until(tb testing.TB, what string, cond func() bool, seen func() string) {
	tb.Helper()
	poll(tb, Interval, Timeout, what, cond, seen)
}

// Within is Seen with its own bound, for a wait that must fail sooner
// than Timeout (the test's own deadline is nearer).
func Within(tb testing.TB, timeout time.Duration, what string, cond func() (done bool, seen string)) {
	tb.Helper()
	Every(tb, Interval, timeout, what, cond)
}

// Every is Within polled every interval instead of every Interval, for a
// condition costly to ask (a scrape, a query to a server) whose answer
// changes slowly: polling it as fast would load the machine and the
// server whose timing the test may be measuring.
func Every(tb testing.TB, interval, timeout time.Duration, what string, cond func() (done bool, seen string)) {
	tb.Helper()
	var last string
	poll(tb, interval, timeout, what, func() bool {
		done, s := cond()
		last = s
		return done
	}, func() string { return last })
}

func poll(tb testing.TB, interval, timeout time.Duration, what string, cond func() bool, seen func() string) {
	tb.Helper()
	err := wait.PollUntilContextTimeout(tb.Context(), interval, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err == nil {
		return
	}
	if s := seen(); s != "" {
		tb.Fatalf("waited %s for %s, in vain: %s", timeout, what, s)
	}
	tb.Fatalf("waited %s for %s, in vain", timeout, what)
}
