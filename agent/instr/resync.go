package instr

import "time"

// EffectiveResync is the period a listener gets when it asks for desired
// and the informer checks every check: never when either is zero, and no
// more often than the check (client-go's determineResyncPeriod).
func EffectiveResync(desired, check time.Duration) time.Duration {
	if desired == 0 || check == 0 {
		return 0
	}
	return max(desired, check)
}
