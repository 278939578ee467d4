package tui

import (
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// ✓ only while the cache can be trusted: a synced informer whose watch
// is down or that lists again reads stale, one the access check refused
// reads forbidden rather than syncing.
func TestInformerStateNeverShowsSyncedOverAStaleCache(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	live := source.Reflector{WatchOpen: true, WatchSince: now.Add(-time.Minute), LastHeard: now.Add(-time.Second), LastEventTime: now.Add(-time.Second)}
	for _, c := range []struct {
		name string
		inf  source.Informer
		why  string
		want string
	}{
		{"synced, watch open", source.Informer{Started: true, Synced: true, Reflector: live, Taken: now}, "", "✓ synced"},
		{"never synced", source.Informer{Started: true, Taken: now}, "", "✗ syncing"},
		{"denied", source.Informer{Started: true, Taken: now}, say.DeniedPrefix + "you may not list pods (RBAC)", "✗ forbidden"},
		{"synced, then the watch went down", source.Informer{Started: true, Synced: true, Taken: now,
			Reflector: source.Reflector{LastError: "connection refused", LastErrorTime: now, LastHeard: now.Add(-time.Minute)}}, "", "⚠ stale: watch down"},
		{"synced, relisting", source.Informer{Started: true, Synced: true, Taken: now,
			Reflector: source.Reflector{ListInProgress: true, Relists: 1, LastHeard: now}}, "", "⚠ stale: relisting"},
		{"synced, silent", source.Informer{Started: true, Synced: true, Taken: now,
			Reflector: source.Reflector{WatchOpen: true, WatchSince: now.Add(-time.Hour), LastHeard: now.Add(-11 * time.Minute), LastEventTime: now.Add(-11 * time.Minute)}}, "", "⚠ stale: silent"},
		{"stopped", source.Informer{Started: true, Stopped: true, Synced: true, Taken: now}, "", "■ stopped"},
	} {
		s := stateOf(&c.inf, c.why)
		if got := s.mark + " " + s.text; got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
