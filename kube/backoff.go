package kube

import (
	"sync"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// client-go v0.37's reflector waits after every failed list or watch (and
// after a watch ended by 410 Gone) before it tries again: 0.8 s, doubling
// up to 30 s, each wait stretched by up to as much again (jitter 1.0). The
// count starts over at the first failure more than two minutes after it
// last did, or after the reflector was made. cache.Config offers no way to
// change it, which is why a recovery can take up to a minute and why the
// dashboard offers a key to restart at once.
const (
	reflectorBackoffInit  = 800 * time.Millisecond
	reflectorBackoffMax   = 30 * time.Second
	reflectorBackoffReset = 2 * time.Minute
)

// reflectorWait is the shortest wait after the n-th failure (n >= 1) of a
// run; the longest is twice that.
func reflectorWait(n int) time.Duration {
	return source.Backoff(n, reflectorBackoffInit, reflectorBackoffMax)
}

// attempts follows each informer's failures, as its figures show them, to
// say when its reflector tries again at the latest, as the reflector's
// own backoff counts them.
//
// Locking: mu guards runs.
type attempts struct {
	mu   sync.Mutex
	runs map[string]*failureRun
}

// failureRun mirrors one reflector's backoff.
type failureRun struct {
	errors uint64    // the informer's error count last seen
	began  time.Time // when the backoff's count last started over
	steps  int       // failures since began
	last   time.Time // the newest failure
}

func newAttempts() *attempts { return &attempts{runs: map[string]*failureRun{}} }

// start says the named informer was (re)made at now: its reflector's
// backoff is new.
func (a *attempts) start(name string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[name] = &failureRun{began: now}
}

// observe takes in an informer's figures: failures counted since the last
// look are placed at its last error's time (the reflector waits at least
// 0.8 s between two, and the dashboard looks more often than that).
func (a *attempts) observe(s source.Informer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	run := a.runs[s.Name]
	if run == nil {
		run = &failureRun{began: s.Reflector.LastErrorTime}
		a.runs[s.Name] = run
	}
	r := s.Reflector
	if r.Errors <= run.errors {
		run.errors = r.Errors
		return
	}
	n := int(r.Errors - run.errors)
	run.errors = r.Errors
	if r.LastErrorTime.Sub(run.began) > reflectorBackoffReset {
		run.began, run.steps = r.LastErrorTime, 0
	}
	run.steps += n
	run.last = r.LastErrorTime
}

// next is when s, waiting out its backoff, tries again at the latest, as
// of now; the zero time when it is not waiting (its watch is open, it is
// listing, it has not failed) or its failures were not seen. Some waits
// follow no failure the figures count (a watch the server ended as it
// went away), so a latest time gone by without a new failure means one
// more step of the backoff than counted.
func (a *attempts) next(s source.Informer, now time.Time) time.Time {
	switch source.LinkOf(s, false) {
	case source.LinkWatchDown, source.LinkRelistPending, source.LinkForbidden:
	default:
		return time.Time{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	run := a.runs[s.Name]
	if run == nil || run.steps == 0 || run.last.IsZero() {
		return time.Time{}
	}
	steps := run.steps
	at := run.last.Add(2 * reflectorWait(steps))
	for at.Before(now) && reflectorWait(steps) < reflectorBackoffMax {
		steps++
		at = run.last.Add(2 * reflectorWait(steps))
	}
	return at
}
