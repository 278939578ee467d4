package demo

import (
	"testing"
	"time"
)

// The waits the expired scenario's notes announce are client-go v0.37's
// reflector backoff: 0.8 s doubling, capped at 30 s, each up to twice that.
func TestBackoffWait(t *testing.T) {
	for _, tc := range []struct {
		n      int
		lo, hi time.Duration
	}{
		{1, 800 * time.Millisecond, 1600 * time.Millisecond},
		{2, 1600 * time.Millisecond, 3200 * time.Millisecond},
		{3, 3200 * time.Millisecond, 6400 * time.Millisecond},
		{6, 25600 * time.Millisecond, 51200 * time.Millisecond},
		{7, 30 * time.Second, time.Minute},
		{20, 30 * time.Second, time.Minute},
	} {
		if lo, hi := backoffWait(tc.n); lo != tc.lo || hi != tc.hi {
			t.Errorf("wait %d: %v–%v, want %v–%v", tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if got := secondsRange(-300*time.Millisecond, 1250*time.Millisecond); got != "0.0–1.2 s" && got != "0.0–1.3 s" {
		t.Errorf("secondsRange = %q", got)
	}
}
