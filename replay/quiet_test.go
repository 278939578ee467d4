package replay

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
)

// client-go's reflector takes a watch that the server ended within a
// second of its start, without an event, for a broken one and relists;
// one that lasted longer it simply opens again. The replay must end a
// stream with nothing in it on the same side of that second as the live
// one ended, whatever its speed, or its reflector makes other calls than
// the recorded ones. These tests run in a synctest bubble: the replay's
// clock and the reflector's are the bubble's, so the second is exact and
// nothing depends on the machine's load.

func quietPod(name, rv string) json.RawMessage {
	return json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"ns","name":"` + name + `","resourceVersion":"` + rv + `"}}`)
}

// replayQuiet replays records of one informer, pods, at speed and returns
// its store and the errors its log shows.
func replayQuiet(t *testing.T, speed float64, watchList bool, records []recording.Record) (store []string, logged []string) {
	t.Helper()
	rec := &recording.Recording{Path: "quiet.rec.zst",
		Header:  recording.Header{Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO", WatchList: watchList}}},
		Records: records,
	}
	s, err := New(readerOf(t, rec), Options{Speed: speed})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := run(s)
	defer stop()
	if err := s.Settled(wctx); err != nil {
		t.Fatal(err)
	}
	for _, ev := range s.Pull(0, 0).Events {
		if ev.Type == source.EventError {
			logged = append(logged, ev.Detail)
		}
	}
	return storeOf(s.Informers()[0]), logged
}

func checkQuiet(t *testing.T, store, logged []string, want string) {
	t.Helper()
	if len(store) != 1 || store[0] != want {
		t.Errorf("the replay ends with %v, want [%s]", store, want)
	}
	for _, l := range logged {
		if strings.Contains(l, "skipped") {
			t.Errorf("the replay's reflector did not make the recorded calls: %s", l)
		}
	}
}

// TestQuietWatchIsNoShortWatch: a watch that stayed open and silent for
// minutes until the server ended it (its timeout, on a quiet resource)
// is followed by another watch, not a relist, even replayed as fast as
// possible.
func TestQuietWatchIsNoShortWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, logged := replayQuiet(t, 0, false, []recording.Record{
			{T: 1, Kind: recording.KindList, Informer: "pods", RV: "3", Items: []json.RawMessage{quietPod("a", "3")}},
			{T: 2, Kind: recording.KindWatch, Informer: "pods"},
			{T: int64(5 * time.Minute), Kind: recording.KindClose, Informer: "pods", By: "server"},
			{T: int64(5*time.Minute) + 1, Kind: recording.KindWatch, Informer: "pods"},
			{T: int64(6 * time.Minute), Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", Object: quietPod("a", "4")},
		})
		checkQuiet(t, store, logged, "ns/a@4")
	})
}

// TestQuietStreamedListIsNoShortWatch: the same for the rest of a stream
// that began with the initial list: the reflector counts from the
// initial-events-end bookmark on.
func TestQuietStreamedListIsNoShortWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		end := json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}`)
		store, logged := replayQuiet(t, 0, true, []recording.Record{
			{T: 1, Kind: recording.KindWatch, Informer: "pods", Options: &metav1.ListOptions{SendInitialEvents: new(true)}},
			{T: 2, Kind: recording.KindEvent, Informer: "pods", Type: "ADDED", Object: quietPod("a", "3")},
			{T: 3, Kind: recording.KindEvent, Informer: "pods", Type: "BOOKMARK", Object: end},
			{T: int64(5 * time.Minute), Kind: recording.KindClose, Informer: "pods", By: "server"},
			{T: int64(5*time.Minute) + 1, Kind: recording.KindWatch, Informer: "pods", Options: &metav1.ListOptions{ResourceVersion: "3"}},
			{T: int64(6 * time.Minute), Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", Object: quietPod("a", "4")},
		})
		checkQuiet(t, store, logged, "ns/a@4")
	})
}

// TestShortWatchStaysShort: a watch the server ended after 300ms without
// an event made the live reflector relist; replayed at a quarter of the
// recorded pace it must still end within the second.
func TestShortWatchStaysShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, logged := replayQuiet(t, 0.25, false, []recording.Record{
			{T: 1, Kind: recording.KindList, Informer: "pods", RV: "3", Items: []json.RawMessage{quietPod("a", "3")}},
			{T: 2, Kind: recording.KindWatch, Informer: "pods"},
			{T: int64(300 * time.Millisecond), Kind: recording.KindClose, Informer: "pods", By: "server"},
			{T: int64(2 * time.Second), Kind: recording.KindList, Informer: "pods", RV: "4", Items: []json.RawMessage{quietPod("a", "4")}},
			{T: int64(2*time.Second) + 1, Kind: recording.KindWatch, Informer: "pods"},
		})
		checkQuiet(t, store, logged, "ns/a@4")
	})
}
