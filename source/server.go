package source

import (
	"fmt"
	"time"

	"github.com/informtop/informtop/internal/humanize"
)

// ServerStats is what the API server says about the resource an informer
// watches: its watch cache beside the informer's own view. Sources that
// cannot read it leave Frame.Server empty; a source that may not read it
// sets Available false and Reason.
type ServerStats struct {
	// Available is false when the source could not read the server's
	// figures; Reason then says why and what would show them.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// From names where the figures come from (behind a load balancer, the
	// one API server that answered the scrape).
	From string `json:"from,omitempty"`
	// WatchCacheResourceVersion is the newest resourceVersion the watch
	// cache holds; WatchCacheCapacity how many events its window keeps.
	WatchCacheResourceVersion string  `json:"watchCacheResourceVersion,omitempty"`
	WatchCacheCapacity        float64 `json:"watchCacheCapacity"`
	// EventsReceived came into the watch cache from storage;
	// EventsDispatched went out of it to watchers; WatchEventsSent were
	// written to watch clients (all clients of this resource, not only
	// informtop).
	EventsReceived   uint64 `json:"eventsReceived"`
	EventsDispatched uint64 `json:"eventsDispatched"`
	WatchEventsSent  uint64 `json:"watchEventsSent"`
	// TerminatedWatchers counts watchers the server closed because they
	// could not keep up.
	TerminatedWatchers uint64 `json:"terminatedWatchers"`
	// DispatchLatencyMeanSeconds is the mean time from storage to a
	// watcher, over the server's life.
	DispatchLatencyMeanSeconds float64 `json:"dispatchLatencyMeanSeconds"`
	// Taken is when the figures were read.
	Taken time.Time `json:"taken"`
}

// Sentence is the figures in one line, or why there are none.
func (s ServerStats) Sentence() string {
	if !s.Available {
		return s.Reason
	}
	out := fmt.Sprintf("watch cache at RV %s, window %s events · %s received, %s dispatched · %s sent to watch clients · %s",
		s.WatchCacheResourceVersion, humanize.Count(int64(s.WatchCacheCapacity)), humanize.Count(s.EventsReceived),
		humanize.Count(s.EventsDispatched), humanize.Count(s.WatchEventsSent), humanize.Plural(s.TerminatedWatchers, "terminated watcher"))
	if s.DispatchLatencyMeanSeconds > 0 {
		out += fmt.Sprintf(" · dispatch %s mean", time.Duration(s.DispatchLatencyMeanSeconds*float64(time.Second)).Round(time.Microsecond))
	}
	if s.From != "" {
		out += " (from " + s.From + ")"
	}
	return out
}
