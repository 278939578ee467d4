package demo

import (
	"strconv"
	"time"

	"github.com/informtop/informtop/source"
)

// serverStats is the simulated API server's side of every informer's
// watch, in the form a real cluster's /metrics gives it. The simulated
// server counts for all its resources together, so every informer gets the
// same figures, and says so in From.
func (d *Demo) serverStats() map[string]source.ServerStats {
	st := d.cluster.Stats()
	s := source.ServerStats{
		Available:                 true,
		From:                      "the demo's simulated API server, all resources",
		WatchCacheResourceVersion: strconv.FormatUint(st.ResourceVersion, 10),
		WatchCacheCapacity:        float64(d.cluster.HistorySize()),
		EventsReceived:            st.Writes,
		EventsDispatched:          st.EventsSent,
		WatchEventsSent:           st.EventsSent + st.BookmarksSent,
		TerminatedWatchers:        st.WatchesSlow,
		Taken:                     time.Now(),
	}
	out := map[string]source.ServerStats{}
	for _, inf := range d.Informers() {
		out[inf.Name()] = s
	}
	return out
}
