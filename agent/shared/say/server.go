package say

import (
	"fmt"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// Server says the API server's figures in one line, or why there are none.
func Server(s source.ServerStats) string { return ServerSince(s, nil) }

// ServerSince is Server with the rates of events received and
// dispatched since prev, an earlier reading of the same server.
func ServerSince(s source.ServerStats, prev *source.ServerStats) string {
	if !s.Available {
		return s.Reason
	}
	received, dispatched := humanize.Count(s.EventsReceived)+" received", humanize.Count(s.EventsDispatched)+" dispatched"
	if prev != nil && prev.Available && s.Taken.After(prev.Taken) && s.EventsReceived >= prev.EventsReceived && s.EventsDispatched >= prev.EventsDispatched {
		secs := s.Taken.Sub(prev.Taken).Seconds()
		received += " (" + humanize.Rate(float64(s.EventsReceived-prev.EventsReceived)/secs) + ")"
		dispatched += " (" + humanize.Rate(float64(s.EventsDispatched-prev.EventsDispatched)/secs) + ")"
	}
	out := fmt.Sprintf("watch cache at RV %s, window %s events · %s, %s · %s sent to watch clients · %s",
		s.WatchCacheResourceVersion, humanize.Count(int64(s.WatchCacheCapacity)), received,
		dispatched, humanize.Count(s.WatchEventsSent), humanize.Plural(s.TerminatedWatchers, "terminated watcher"))
	if s.ListsFromCache+s.ListsFromStorage > 0 {
		out += fmt.Sprintf(" · lists: %s from the watch cache, %s from etcd", humanize.Count(s.ListsFromCache), humanize.Count(s.ListsFromStorage))
	}
	if s.WatchLists > 0 {
		out += " · " + humanize.Plural(s.WatchLists, "streamed list")
	}
	if s.DispatchLatencyMeanSeconds > 0 {
		out += " · dispatch " + humanize.Elapsed(time.Duration(s.DispatchLatencyMeanSeconds*float64(time.Second)), time.Microsecond) + " mean"
	}
	if s.From != "" {
		out += " (from " + s.From + ")"
	}
	return out
}
