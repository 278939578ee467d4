package serve

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Bounds of the agent's request rate, for every client together.
const (
	defaultRequestsPerSecond = 100
	// attachShare is the part of the rate kept for the attach paths; the
	// rest is /metrics'. A dashboard asks 10 to 20 times a second, a
	// Prometheus server once per scrape interval, so scrapers need little
	// and a flood of them must leave attach the most.
	attachShare = 0.75
	// maxAdmissionWait is how long a request may wait for its turn: under
	// attach's and Prometheus's own timeouts, so they read the 503's
	// sentence rather than time out.
	maxAdmissionWait = 2 * time.Second
	// maxWaiting bounds the requests parked at once in one budget, so a
	// flood of connections costs memory no more than a burst does.
	maxWaiting = 256
)

// sentenceTooMany answers a request turned away by the rate bound; only
// a request whose token was accepted meets it.
const sentenceTooMany = "the informtop agent answers a bounded number of requests per second, so that its clients never slow the controller, and more are asking now than it answers; try again shortly"

// budgets are the agent's two rate bounds: one for the attach paths and
// one for /metrics, each spent only by requests whose token was checked,
// so that neither unauthenticated clients nor a flood of scrapers can
// starve an attached dashboard. Fixed once built; nil members admit
// everything.
type budgets struct {
	attach, metrics *admission
}

// newBudgets splits perSecond (0: the default; negative: no bound)
// between the two budgets.
func newBudgets(perSecond float64) budgets {
	switch {
	case perSecond < 0:
		return budgets{}
	case perSecond == 0:
		perSecond = defaultRequestsPerSecond
	}
	return budgets{
		attach:  newAdmission(perSecond * attachShare),
		metrics: newAdmission(perSecond * (1 - attachShare)),
	}
}

// admission bounds the rate of requests of one budget: what a flood of
// clients costs the controller's process is their HTTP handling itself,
// even of answers computed once and shared, so requests beyond the rate
// sleep (costing nothing) rather than run. It applies after the token is
// checked: a refusal costs about what waiting would, and charging it
// would let anyone spend the owners' turns. Safe for concurrent use (the
// limiter locks itself; waiting is atomic); a nil *admission admits
// everything at once.
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
