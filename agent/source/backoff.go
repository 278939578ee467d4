package source

import "time"

// Backoff is how long a source that reads something remote (an agent,
// Prometheus) waits after its n-th failure in a row (n >= 1): lo,
// doubling, at most hi. Status.NextRetry says when that is.
func Backoff(n int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}
