package replay

import (
	"strings"
	"testing"

	"github.com/informtop/informtop/engine"
)

// TestDemoReplaysTheSameTwice: a seeded demo recording, replayed twice as
// fast as possible, gives the same report, stores and callbacks; and the
// replay's callbacks are the ones the recording's listeners made.
func TestDemoReplaysTheSameTwice(t *testing.T) {
	path, live := recordDemo(t, 400)
	a := replayOnce(t, path, Options{})
	b := replayOnce(t, path, Options{})
	if a.report != b.report {
		t.Errorf("two replays of one file reported differently:\n%s\n---\n%s", a.report, b.report)
	}
	if !strings.Contains(a.report, `"source": "replay"`) {
		t.Errorf("the report does not say it comes from a replay:\n%s", a.report)
	}
	for name, st := range a.stores {
		if len(st) == 0 {
			t.Errorf("informer %s replayed to an empty store", name)
		}
		if d := diff(st, b.stores[name]); d != "" {
			t.Errorf("informer %s's store differs between replays: %s", name, d)
		}
	}
	for id, calls := range a.calls {
		// The live demo stopped with notifications still on their way; the
		// replay delivers everything recorded, so the live run's calls are
		// where the replay's begin.
		if n := len(live[id]); n == 0 || n > len(calls) || diff(live[id], calls[:n]) != "" {
			t.Errorf("listener %s: the live run's %d callbacks are not how the replay's %d begin: %s", id, n, len(calls), diff(live[id], calls[:min(n, len(calls))]))
		}
		if d := diff(calls, b.calls[id]); d != "" {
			t.Errorf("listener %s's callbacks differ between replays: %s", id, d)
		}
	}
}

// TestReplayThroughTheOtherQueue: a RealFIFO recording replayed through a
// DeltaFIFO ends with the same stores and hands every listener the same
// notifications for each key.
func TestReplayThroughTheOtherQueue(t *testing.T) {
	path, _ := recordDemo(t, 400)
	real := replayOnce(t, path, Options{})
	kind := engine.DeltaFIFO
	delta := replayOnce(t, path, Options{Queue: &kind})
	if !strings.Contains(delta.report, `"queueKind": "DeltaFIFO"`) {
		t.Fatalf("the replay did not use a DeltaFIFO:\n%s", delta.report)
	}
	for name, st := range real.stores {
		if d := diff(st, delta.stores[name]); d != "" {
			t.Errorf("informer %s's store differs between RealFIFO and DeltaFIFO: %s", name, d)
		}
	}
	for id, keys := range real.perKey {
		if len(keys) == 0 {
			t.Errorf("listener %s got nothing", id)
		}
		for key, calls := range keys {
			if d := diff(calls, delta.perKey[id][key]); d != "" {
				t.Errorf("listener %s, key %s: notifications differ between RealFIFO and DeltaFIFO: %s", id, key, d)
			}
		}
	}
}
