package processor

import (
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

// ListenerStats is a cheap copy of one listener's instrumentation.
type ListenerStats struct {
	Name            string             `json:"name"`
	Pending         int                `json:"pending"`   // notifications waiting in the backlog, not counting the one in progress
	Capacity        int                `json:"capacity"`  // current size of the backlog ring buffer
	HighWater       int                `json:"highWater"` // largest Pending ever seen
	Delivered       pipeline.Delivered `json:"delivered"`
	LatencyP50      time.Duration      `json:"latencyP50"` // over a recent window of handler calls
	LatencyP99      time.Duration      `json:"latencyP99"`
	InCallback      string             `json:"inCallback,omitempty"` // CallbackAdd/Update/Delete while a call is running
	InCallbackKey   string             `json:"inCallbackKey,omitempty"`
	InCallbackSince time.Time          `json:"inCallbackSince"`
	Synced          bool               `json:"synced"`
	SyncedAt        time.Time          `json:"syncedAt"` // when the registration first reported HasSynced; zero until then
	Panics          uint64             `json:"panics"`
	LastPanic       string             `json:"lastPanic,omitempty"`
	// CacheMutations counts the callbacks in which this listener's handler
	// changed the cached object it was given (only with mutation
	// attribution on); LastCacheMutation is the latest of them.
	CacheMutations    uint64                  `json:"cacheMutations"`
	LastCacheMutation *pipeline.CacheMutation `json:"lastCacheMutation,omitempty"`
	RequestedResync   time.Duration           `json:"requestedResync"`
	ResyncPeriod      time.Duration           `json:"resyncPeriod"`
	// OldestPendingSince is when the oldest notification not yet handled
	// (the one in progress included) was queued, at the latest; zero when
	// none is, or when it was queued less than a checkpoint tick ago.
	OldestPendingSince time.Time `json:"oldestPendingSince"`
}

// OldestPendingAge is how far behind the listener is at now: the age of
// its oldest unhandled notification, 0 when it has none.
func (s ListenerStats) OldestPendingAge(now time.Time) time.Duration {
	if s.OldestPendingSince.IsZero() {
		return 0
	}
	return max(now.Sub(s.OldestPendingSince), 0)
}
