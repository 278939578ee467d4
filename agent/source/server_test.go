package source

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// In JSON an unavailable reading is why and nothing else: no zeros that
// would read as counted, no zero time; an available one keeps every
// figure, zeros included (no terminated watcher is a fact).
func TestServerStatsJSONOnlyWhatIsKnown(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   ServerStats
		want string
	}{
		{ServerStats{Reason: "denied"}, `{"available":false,"reason":"denied"}`},
		{ServerStats{Reason: "no watch cache", From: "https://lb:6443", APIServers: 2, Taken: t0},
			`{"available":false,"reason":"no watch cache","from":"https://lb:6443","apiServers":2}`},
		{ServerStats{Available: true, WatchCacheResourceVersion: "7", WatchCacheCapacity: 100, Taken: t0},
			`{"available":true,"watchCacheResourceVersion":"7","watchCacheCapacity":100,"eventsReceived":0,"eventsDispatched":0,` +
				`"watchEventsSent":0,"terminatedWatchers":0,"dispatchLatencyMeanSeconds":0,"listsFromCache":0,"listsFromStorage":0,` +
				`"watchLists":0,"taken":"2026-11-24T01:00:00Z"}`},
	} {
		got, err := json.Marshal(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
	// Through a pointer, as the report holds it, and with the demo's path.
	demo := &ServerStats{Available: true, WatchCacheResourceVersion: "812", TerminatedWatchers: 1, Path: &WatchPath{EtcdRevision: 812}}
	got, err := json.Marshal(struct{ S *ServerStats }{demo})
	if err != nil || !strings.Contains(string(got), `"terminatedWatchers":1`) || !strings.Contains(string(got), `"path":{"etcdRevision":812`) {
		t.Errorf("the demo's figures: %s (%v)", got, err)
	}
}
