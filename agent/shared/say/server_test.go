package say

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// Two readings of the same server give the rates of events received and
// dispatched between them; the lists it served say where from.
func TestServerSentenceRatesAndLists(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)
	before := source.ServerStats{Available: true, WatchCacheResourceVersion: "100", WatchCacheCapacity: 1000,
		EventsReceived: 1000, EventsDispatched: 3000, Taken: t0}
	now := before
	now.EventsReceived, now.EventsDispatched, now.Taken = 1050, 3200, t0.Add(5*time.Second)
	now.ListsFromCache, now.ListsFromStorage, now.WatchLists = 4, 1, 2
	got := ServerSince(now, &before)
	for _, want := range []string{"1,050 received (10/s), 3,200 dispatched (40/s)", "lists: 4 from the watch cache, 1 from etcd", "2 streamed lists"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence lacks %q: %s", want, got)
		}
	}
	// A reading from another server (counters went down) or the same
	// reading again gives no rate rather than a wrong one.
	restarted := now
	restarted.EventsReceived, restarted.Taken = 10, now.Taken.Add(5*time.Second)
	for _, s := range []string{ServerSince(restarted, &now), ServerSince(now, &now), Server(now)} {
		if strings.Contains(s, "/s)") {
			t.Errorf("a rate where there is none to tell: %s", s)
		}
	}
}
