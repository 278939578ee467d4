package replay

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/source/local"
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
	kind := source.DeltaFIFO
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

// TestReplaySaysWhatTheRecordingLacks: a recording cut short and one that
// lost records say so in the replay's notes, and still replay.
func TestReplaySaysWhatTheRecordingLacks(t *testing.T) {
	rec := &recording.Recording{Path: "cut.rec.zst",
		Header: recording.Header{Source: "unit", Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO"}}},
		Records: []recording.Record{
			{T: 1, Kind: recording.KindList, Informer: "pods", RV: "5"},
			{T: 2, Kind: recording.KindGap, Dropped: 7},
			{T: 3, Kind: recording.KindWatch, Informer: "pods"},
		},
		Stop: &recording.Stop{Offset: 1234, Records: 3, At: 3},
	}
	s, err := New(readerOf(t, rec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(s.notes(), "\n")
	for _, want := range []string{"cut.rec.zst is cut short at byte 1234: replaying its 3 complete records", "the recording lost 7 records when its disk fell behind"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	wctx, stop := run(s)
	defer stop()
	if err := s.Settled(wctx); err != nil {
		t.Fatal(err)
	}
	if snap := s.States()[0]; !snap.Synced || snap.LastSyncResourceVersion != "5" || !snap.Reflector.WatchOpen {
		t.Errorf("the replay of an empty list then a watch: %+v", snap.Reflector)
	}
	if notes := strings.Join(s.notes(), "\n"); !strings.Contains(notes, "has been served, as fast as possible: the last watch stays open and silent") {
		t.Errorf("notes once served:\n%s", notes)
	}
}

// TestReplayWithoutAList: a recording that ends before an informer's list
// was complete cannot sync it; Settled says so instead of waiting forever.
func TestReplayWithoutAList(t *testing.T) {
	rec := &recording.Recording{Path: "early.rec.zst",
		Header:  recording.Header{Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO"}}},
		Records: []recording.Record{{T: 1, Kind: recording.KindList, Informer: "pods", RV: "5", Continue: "more"}},
	}
	s, err := New(readerOf(t, rec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := run(s)
	defer stop()
	err = s.Settled(wctx)
	if err == nil || err.Error() != "early.rec.zst ends before the initial list of pods was complete, so the replay cannot sync it" {
		t.Errorf("settled: %v", err)
	}
}

// TestHandlersTakeTheRecordedTime: a replayed listener spends in each
// callback the time the recorded one did (scaled by the speed), in order.
// It runs in a synctest bubble, whose clock moves only when every
// goroutine of the replay waits: the times measured are the ones the
// replay asked for, exactly, whatever the machine's load.
func TestHandlersTakeTheRecordedTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pod := func(name string) json.RawMessage {
			return json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"ns","name":"` + name + `","resourceVersion":"3"}}`)
		}
		rec := &recording.Recording{Path: "slow.rec.zst",
			Header: recording.Header{Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO",
				Listeners: []recording.Listener{{Name: "slow"}}}}},
			Records: []recording.Record{
				{T: 1, Kind: recording.KindList, Informer: "pods", RV: "3", Items: []json.RawMessage{pod("a"), pod("b")}},
				{T: 2, Kind: recording.KindCall, Informer: "pods", Listener: "slow", Callback: "OnAdd", Duration: int64(80 * time.Millisecond)},
				{T: 3, Kind: recording.KindCall, Informer: "pods", Listener: "slow", Callback: "OnAdd", Duration: int64(time.Microsecond)},
			},
		}
		s, err := New(readerOf(t, rec), Options{Speed: 2})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var took []time.Duration
		s.ObserveCalls(func(_, _ string, _ local.Call, d time.Duration) {
			mu.Lock()
			took = append(took, d)
			mu.Unlock()
		})
		wctx, stop := run(s)
		defer stop()
		if err := s.Settled(wctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		// 80ms at speed 2; 1µs/2 is owed rather than slept (the listener
		// sleeps in steps of a millisecond at least), so it takes no time.
		if len(took) != 2 || took[0] != 40*time.Millisecond || took[1] != 0 {
			t.Errorf("callbacks took %v, want [40ms 0s]: the first 80ms/2 and the second next to nothing", took)
		}
	})
}
