package demo

import (
	"strconv"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// The simulated API server's side of each informer's watch reaches every
// frame: what a real cluster's /metrics says about the resource (the watch
// cache's resourceVersion and window, what it sent), and the stages of its
// watch path, with the informer's own watch among the watchers.
func TestFramesCarryTheServersSide(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "steady", Seed: 3, Objects: 20, TimeScale: 0.01})
	f := d.Pull(0, 0)
	if len(f.Snapshots) == 0 {
		t.Fatal("no informers")
	}
	for _, snap := range f.Snapshots {
		st, ok := f.Server[snap.Name]
		rv, _ := strconv.ParseUint(st.WatchCacheResourceVersion, 10, 64)
		if !ok || !st.Available || st.WatchCacheCapacity != 1000 || rv != d.cluster.ResourceVersion() || st.EventsReceived == 0 || st.Path == nil {
			t.Errorf("%s: server figures %+v (ok %v), cluster at RV %d", snap.Name, st, ok, d.cluster.ResourceVersion())
			continue
		}
		if p := st.Path; p.Cache.Len != int(st.EventsReceived) || p.Incoming.Cap != 100 || p.EtcdRevision != rv {
			t.Errorf("%s: watch path before any watch %+v", snap.Name, p)
		}
	}
	start(t, d)
	waitfor.Seen(t, "every informer's watch at the server", func() (bool, string) {
		f := d.Pull(0, 0)
		for _, snap := range f.Snapshots {
			p := f.Server[snap.Name].Path
			if p == nil || len(p.Watchers) != 1 || p.Watchers[0].Client != snap.Name || p.Watchers[0].Sent == 0 {
				return false, snap.Name + " has no watcher that received events"
			}
			if p.Decoded == 0 || f.Server[snap.Name].EventsDispatched == 0 || f.Server[snap.Name].DispatchLatencyMeanSeconds <= 0 {
				return false, snap.Name + ": nothing went through the storage watcher to a watcher, or its dispatch was not timed"
			}
		}
		return true, ""
	})
}
