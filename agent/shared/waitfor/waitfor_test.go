package waitfor

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a testing.TB whose Fatalf records the failure and ends the
// goroutine, as the real one does.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls wait with a recorder over t, in a goroutine of its own so its
// Fatalf can end it, and returns what it failed with ("" for no failure).
func run(t *testing.T, wait func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(r)
	}()
	<-done
	return r.failure
}

// A wait that comes true returns, however many polls it took.
func TestTrueReturnsOnceTheConditionHolds(t *testing.T) {
	var polls atomic.Int32
	if failure := run(t, func(tb testing.TB) {
		True(tb, "the third poll", func() bool { return polls.Add(1) >= 3 })
	}); failure != "" {
		t.Fatalf("a condition that came true failed the test: %s", failure)
	}
	if polls.Load() != 3 {
		t.Errorf("polled %d times, want 3", polls.Load())
	}
}

// A wait in vain fails the test, saying what it waited for and what it
// saw last: never a silent give-up.
func TestAWaitInVainSaysWhatItWaitedForAndSaw(t *testing.T) {
	n := 0
	failure := run(t, func(tb testing.TB) {
		Within(tb, 20*time.Millisecond, "the queue to drain", func() (bool, string) {
			n++
			return false, fmt.Sprintf("depth %d", n)
		})
	})
	if !strings.Contains(failure, "the queue to drain") || !strings.Contains(failure, fmt.Sprintf("depth %d", n)) {
		t.Errorf("the failure reads %q; want what was awaited and the last depth seen (%d)", failure, n)
	}
	failure = run(t, func(tb testing.TB) {
		Within(tb, 20*time.Millisecond, "a flag", func() (bool, string) { return false, "" })
	})
	if !strings.Contains(failure, "a flag") {
		t.Errorf("the failure reads %q; want what was awaited", failure)
	}
}

// Until asks what was seen only when the wait fails.
func TestUntilAsksWhatWasSeenOnlyOnFailure(t *testing.T) {
	asked := 0
	seen := func() string { asked++; return "nothing yet" }
	if failure := run(t, func(tb testing.TB) { Until(tb, "true", func() bool { return true }, seen) }); failure != "" || asked != 0 {
		t.Errorf("a wait that held failed with %q after asking %d times what was seen", failure, asked)
	}
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		poll(r, Interval, 20*time.Millisecond, "false", func() bool { return false }, seen)
	}()
	<-done
	if asked != 1 || !strings.Contains(r.failure, "nothing yet") {
		t.Errorf("a wait in vain asked %d times and failed with %q", asked, r.failure)
	}
}

// Every asks no oftener than its interval: a condition that holds at the
// fourth asking is met three intervals after the first, by the bubble's
// clock, and a wait in vain asked once per interval of its bound.
func TestEveryAsksOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		began := time.Now()
		asked := 0
		if failure := run(t, func(tb testing.TB) {
			Every(tb, time.Second, time.Minute, "the fourth asking", func() (bool, string) {
				asked++
				return asked == 4, ""
			})
		}); failure != "" {
			t.Fatalf("a condition that came true failed the test: %s", failure)
		}
		if took := time.Since(began); asked != 4 || took != 3*time.Second {
			t.Errorf("asked %d times in %s; want 4 in 3s", asked, took)
		}
		asked = 0
		failure := run(t, func(tb testing.TB) {
			Every(tb, time.Second, 10*time.Second, "never", func() (bool, string) { asked++; return false, "" })
		})
		if !strings.Contains(failure, "never") || asked < 10 || asked > 11 {
			t.Errorf("a wait of 10s polled every second asked %d times and failed with %q", asked, failure)
		}
	})
}
