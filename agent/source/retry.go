package source

import (
	"context"
	"time"
)

// Retrier is a source whose informers run in this process against a
// server: it knows when each one that lost its watch or list tries again
// (client-go's reflector backs off up to a minute, doubling from 0.8 s),
// and restarts them at once when asked, as a key after an outage does.
// Restarting only lists and watches again: it is a read, like the rest.
type Retrier interface {
	// NextAttempts says, per informer waiting out its reflector's
	// backoff, when it tries again at the latest; informers not waiting
	// are absent.
	NextAttempts() map[string]time.Time
	// RetryNow restarts the list and watch of every informer waiting out
	// its backoff, or refused (after checking access again), and returns
	// their names. It refuses, restarting nothing, when the server still
	// does not answer, so the caches keep what they hold.
	RetryNow(ctx context.Context) ([]string, error)
}
