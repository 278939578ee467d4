package pipeline

import (
	"fmt"
	"strings"
	"time"
)

// Listener is one handler registration of an informer: what the engine's
// processor counts of it, and what a source outside the engine (the
// agent, over client-go's informer) fills as far as it can see. Only such
// a source sets PendingEstimated; only one that reads stacks sets Frame.
type Listener struct {
	Name string `json:"name"`
	// Pending counts notifications waiting, not counting the one in progress.
	Pending int `json:"pending"`
	// PendingEstimated: Pending is a lower bound, not a count. client-go's
	// own informer keeps a listener's backlog to itself, so an agent
	// outside it counts what the informer distributed (through a listener
	// that does nothing, resynced as the handler is) less what the handler
	// took: the figure lags by the notifications that do-nothing listener
	// has not yet taken, which it takes within microseconds of their
	// distribution (docs/agent.md has the bound).
	PendingEstimated bool `json:"pendingEstimated,omitempty"`
	// Capacity is the backlog's current size; HighWater the largest
	// Pending ever seen.
	Capacity  int       `json:"capacity"`
	HighWater int       `json:"highWater"`
	Delivered Delivered `json:"delivered"`
	// LatencyP50 and LatencyP99 are over a recent window of calls.
	LatencyP50 time.Duration `json:"latencyP50"`
	LatencyP99 time.Duration `json:"latencyP99"`
	// InCallback is CallbackAdd, CallbackUpdate or CallbackDelete while a
	// call runs, with its key and start.
	InCallback      string    `json:"inCallback,omitempty"`
	InCallbackKey   string    `json:"inCallbackKey,omitempty"`
	InCallbackSince time.Time `json:"inCallbackSince"`
	// Frame is the code the call in progress was found in once it had run
	// longer than StallAfter: the innermost frame of the listener's
	// goroutine outside the Go runtime and standard library, client-go,
	// controller-runtime and informtop. Nil while no stalled call was
	// caught, or where the source cannot see stacks.
	Frame  *StackFrame `json:"frame,omitempty"`
	Synced bool        `json:"synced"`
	// SyncedAt is when the registration first reported HasSynced.
	SyncedAt  time.Time `json:"syncedAt"`
	Panics    uint64    `json:"panics"`
	LastPanic string    `json:"lastPanic,omitempty"`
	// CacheMutations counts the calls in which the handler changed the
	// cached object it was given; LastCacheMutation is the latest.
	CacheMutations    uint64         `json:"cacheMutations"`
	LastCacheMutation *CacheMutation `json:"lastCacheMutation,omitempty"`
	RequestedResync   time.Duration  `json:"requestedResync"`
	ResyncPeriod      time.Duration  `json:"resyncPeriod"`
	// OldestPendingSince is when the oldest notification not yet handled
	// (the one in progress included) was queued; zero when none is.
	OldestPendingSince time.Time `json:"oldestPendingSince"`
}

// OldestPendingAge is how far behind the listener is at now: the age of
// its oldest unhandled notification, 0 when it has none.
func (l Listener) OldestPendingAge(now time.Time) time.Duration {
	if l.OldestPendingSince.IsZero() {
		return 0
	}
	return max(now.Sub(l.OldestPendingSince), 0)
}

// StalledSince says whether the listener has been in one callback longer
// than after at now, and since when (the callback's start).
func (l Listener) StalledSince(now time.Time, after time.Duration) (time.Time, bool) {
	if l.InCallback == "" || l.InCallbackSince.IsZero() || now.Sub(l.InCallbackSince) <= after {
		return time.Time{}, false
	}
	return l.InCallbackSince, true
}

// StackFrame is one function of a goroutine's stack.
type StackFrame struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// String is "function (file:line)" with the file's base name, as a
// reader of a goroutine dump looks for it.
func (f StackFrame) String() string {
	file := f.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	return fmt.Sprintf("%s (%s:%d)", f.Function, file, f.Line)
}
