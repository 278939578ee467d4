package demo

import (
	"fmt"
	"time"
)

// client-go v0.37's reflector backoff (reflector.go: defaultBackoffInit,
// defaultBackoffFactor, defaultBackoffJitter, defaultBackoffMax,
// defaultBackoffReset): every wait before a retry is twice the one before,
// from 0.8 s, plus a random part of up to as much again, at most 30 s
// before that random part; it starts over after two minutes without one.
const (
	backoffInit = 800 * time.Millisecond
	backoffMax  = 30 * time.Second
)

// backoffWait is the range of the n-th wait (from 1) of a backoff streak.
func backoffWait(n int) (lo, hi time.Duration) {
	lo = backoffInit
	for i := 1; i < n && lo < backoffMax; i++ {
		lo *= 2
	}
	lo = min(lo, backoffMax)
	return lo, 2 * lo
}

// backoffRule is the rule in one sentence, for the notes.
const backoffRule = "client-go v0.37 waits 0.8 s before a retry, twice as long each time after, plus up to as much at random (at most 30 s)"

// secondsRange is "1.2–2.8 s", each end rounded to a tenth and at least 0.
func secondsRange(lo, hi time.Duration) string {
	return fmt.Sprintf("%.1f–%.1f s", max(lo, 0).Seconds(), max(hi, 0).Seconds())
}
