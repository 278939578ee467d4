package demo

import (
	"strconv"
	"testing"
)

// The simulated API server's side of the watch reaches every frame, as a
// real cluster's /metrics does: its resourceVersion, its history window
// (the watch cache's), and what it has sent.
func TestFramesCarryTheServersSide(t *testing.T) {
	t.Parallel()
	d, err := New(Config{Scenario: "steady"})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Pull(0, 0)
	if len(f.Snapshots) == 0 {
		t.Fatal("no informers")
	}
	for _, snap := range f.Snapshots {
		st, ok := f.Server[snap.Name]
		rv, _ := strconv.ParseUint(st.WatchCacheResourceVersion, 10, 64)
		if !ok || !st.Available || st.WatchCacheCapacity != 1000 || rv != d.cluster.ResourceVersion() || st.EventsReceived == 0 {
			t.Errorf("%s: server figures %+v (ok %v), cluster at RV %d", snap.Name, st, ok, d.cluster.ResourceVersion())
		}
	}
}
