package agent

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Bounds of the agent's request rate, for every client together.
const (
	defaultRequestsPerSecond = 100
	// maxAdmissionWait is how long a request may wait for its turn: under
	// attach's and Prometheus's own timeouts, so they read the 503's
	// sentence rather than time out.
	maxAdmissionWait = 2 * time.Second
	// maxWaiting bounds the requests parked at once, so a flood of
	// connections costs memory no more than a burst does.
	maxWaiting = 512
)

// sentenceTooMany answers a request turned away by the rate bound; it is
// the same for everyone, asked with a token or not.
const sentenceTooMany = "the informtop agent answers a bounded number of requests per second, so that its clients never slow the controller, and more are asking now than it answers; try again shortly"

// admission bounds the rate of requests the agent answers: what a flood of
// clients costs the controller's process is their HTTP handling itself,
// even of answers computed once and shared, so requests beyond the rate
// sleep (costing nothing) rather than run. It applies before the token is
// checked, as an unauthenticated flood costs the same. Safe for concurrent
// use; a nil *admission admits everything at once.
type admission struct {
	limit   *rate.Limiter
	waiting atomic.Int64 // requests parked in wait now
}

// newAdmission bounds requests to perSecond (0: the default; negative: no
// bound, nil).
func newAdmission(perSecond float64) *admission {
	switch {
	case perSecond < 0:
		return nil
	case perSecond == 0:
		perSecond = defaultRequestsPerSecond
	}
	burst := max(1, int(perSecond))
	return &admission{limit: rate.NewLimiter(rate.Limit(perSecond), burst)}
}

// wait returns once the request may be answered, true, or false when its
// turn would come later than maxAdmissionWait, too many already wait, or
// the client went away.
func (a *admission) wait(ctx context.Context) bool {
	if a == nil || a.limit.Allow() {
		return true
	}
	if a.waiting.Add(1) > maxWaiting {
		a.waiting.Add(-1)
		return false
	}
	defer a.waiting.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, maxAdmissionWait)
	defer cancel()
	// Wait refuses at once, taking no token, when the turn would come
	// after the deadline.
	return a.limit.Wait(ctx) == nil
}
