package processor

import "time"

// Callback names the handler method a listener is running.
const (
	CallbackAdd    = "OnAdd"
	CallbackUpdate = "OnUpdate"
	CallbackDelete = "OnDelete"
)

// Delivered counts notifications a listener's handler has returned from, by kind.
// Sync counts OnUpdate calls that came from a resync (resourceVersion unchanged).
// Tombstones counts the OnDelete calls (also counted in Delete) whose object
// was a cache.DeletedFinalStateUnknown: deletions the informer inferred
// from a relist because it missed the watch event.
type Delivered struct {
	Add        uint64 `json:"add"`
	Update     uint64 `json:"update"`
	Delete     uint64 `json:"delete"`
	Sync       uint64 `json:"sync"`
	Tombstones uint64 `json:"tombstones"`
}

// Total is the number of handler calls that returned.
func (d Delivered) Total() uint64 { return d.Add + d.Update + d.Delete + d.Sync }

// Pending is one notification waiting in a listener's backlog.
type Pending struct {
	Callback string `json:"callback"` // CallbackAdd, CallbackUpdate or CallbackDelete
	Key      string `json:"key"`
	Sync     bool   `json:"sync,omitempty"` // an OnUpdate from a resync
}

// ListenerStats is a cheap copy of one listener's instrumentation.
type ListenerStats struct {
	Name            string        `json:"name"`
	Pending         int           `json:"pending"`   // notifications waiting in the backlog, not counting the one in progress
	Capacity        int           `json:"capacity"`  // current size of the backlog ring buffer
	HighWater       int           `json:"highWater"` // largest Pending ever seen
	Delivered       Delivered     `json:"delivered"`
	LatencyP50      time.Duration `json:"latencyP50"` // over a recent window of handler calls
	LatencyP99      time.Duration `json:"latencyP99"`
	InCallback      string        `json:"inCallback,omitempty"` // CallbackAdd/Update/Delete while a call is running
	InCallbackKey   string        `json:"inCallbackKey,omitempty"`
	InCallbackSince time.Time     `json:"inCallbackSince"`
	Synced          bool          `json:"synced"`
	SyncedAt        time.Time     `json:"syncedAt"` // when the registration first reported HasSynced; zero until then
	Panics          uint64        `json:"panics"`
	LastPanic       string        `json:"lastPanic,omitempty"`
	// CacheMutations counts the callbacks in which this listener's handler
	// changed the cached object it was given (only with mutation
	// attribution on); LastCacheMutation is the latest of them.
	CacheMutations    uint64         `json:"cacheMutations"`
	LastCacheMutation *CacheMutation `json:"lastCacheMutation,omitempty"`
	RequestedResync   time.Duration  `json:"requestedResync"`
	ResyncPeriod      time.Duration  `json:"resyncPeriod"`
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

// CacheMutation is one change a handler made to a cached object.
type CacheMutation struct {
	Time     time.Time `json:"time"`
	Callback string    `json:"callback"` // CallbackAdd or CallbackUpdate
	Key      string    `json:"key"`
	Fields   []string  `json:"fields"` // e.g. `metadata.labels.touched: "" → "yes"`
}
