package demo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// An item the reflector listed did not come through the watch path, and
// the narration says so instead of inventing a journey.
func TestStepOfAListedItemSaysItWasListed(t *testing.T) {
	t.Parallel()
	journey := stepFirstListedItem(t, false)
	assertJourney(t, journey, []string{"listed by the reflector's LIST"})
	if len(journey) != 1 {
		t.Errorf("a listed item's journey has %d lines: %q", len(journey), journey)
	}
}

// With --watch-list the reflector streams its initial list: the items
// came from the watch cache as a watch's initial events, not from a LIST.
func TestStepOfAStreamedItemSaysItWasStreamed(t *testing.T) {
	t.Parallel()
	journey := stepFirstListedItem(t, true)
	assertJourney(t, journey, []string{"streamed from the watch cache as an initial event of a WatchList"})
	if len(journey) != 1 {
		t.Errorf("a streamed item's journey has %d lines: %q", len(journey), journey)
	}
}

// stepFirstListedItem runs a paused demo whose pods are listed (or, with
// watchList, streamed as a WatchList, which it checks) and steps the first
// of them, returning the step's journey.
func stepFirstListedItem(t *testing.T, watchList bool) []string {
	t.Helper()
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 11, Queue: source.DeltaFIFO, Objects: 5, Rate: -1, TimeScale: 0.01, List: listMode(watchList)})
	mustOK(t, d.SetPaused(true))
	start(t, d)
	waitfor.Seen(t, "the listed pods queued", func() (bool, string) {
		s := snapshotOf(t, d, "pods")
		return s.Queue.Depth >= 4, fmt.Sprintf("depth %d", s.Queue.Depth)
	})
	if r := snapshotOf(t, d, "pods").Reflector; watchList && (!r.ListStreamed || d.cluster.Stats().WatchListStreams == 0) {
		t.Fatalf("the list was not streamed: reflector %+v, server %+v", r, d.cluster.Stats())
	}
	step, err := d.Step("pods")
	mustOK(t, err)
	mustOK(t, d.SetPaused(false))
	return step.Journey
}

// An update written while the server refused every connection waited in
// the watch cache's window, nobody to dispatch it to, and reached the
// reflector when its new watch replayed the window; the step says so.
func TestStepOfAReplayedEventSaysItWaitedInTheWindow(t *testing.T) {
	t.Parallel()
	d := quietDemo(t, source.DeltaFIFO)
	mustOK(t, d.SetPaused(true))
	key := d.cluster.Keys(cluster.Pods)[0]
	settle(t, d)
	d.cluster.SetAvailable(false)
	waitfor.Seen(t, "the watch down", func() (bool, string) { return watchesDown(d), "a watch is open" })
	obj, err := d.cluster.Update(cluster.Pods, key)
	mustOK(t, err)
	rv := resourceVersion(obj)
	d.cluster.SetAvailable(true)
	waitfor.Seen(t, "the update replayed to the new watch", func() (bool, string) {
		s := snapshotOf(t, d, "pods")
		return s.Queue.Depth == 1, fmt.Sprintf("depth %d", s.Queue.Depth)
	})
	if r := snapshotOf(t, d, "pods").Reflector; r.Relists != 0 {
		t.Fatalf("the reflector relisted (%d): the update came by a list, not a replay", r.Relists)
	}
	step, err := d.Step("pods")
	mustOK(t, err)
	if step.Key != key || !slices.Equal(step.Deltas, []cache.DeltaType{cache.Updated}) {
		t.Fatalf("step: key %s deltas %v; want %s [Updated]", step.Key, step.Deltas, key)
	}
	const replayed = "replayed from the window to the new watch from resourceVersion "
	assertJourney(t, step.Journey, []string{
		"etcd revision " + rv + ": MODIFIED",
		"no watch open: straight into the watch cache",
		"watch cache appended it (window ",
		"no watcher to dispatch it to: it waited in the window",
		replayed,
		"reflector received MODIFIED " + key,
	})
	for _, line := range step.Journey {
		if strings.HasPrefix(line, "dispatched to") {
			t.Errorf("a replayed event is narrated as dispatched: %q", step.Journey)
		}
		if from, ok := strings.CutPrefix(line, replayed); ok {
			if f, err := strconv.ParseUint(from, 10, 64); err != nil || f >= mustUint(t, rv) {
				t.Errorf("replayed to a watch from %q, not from before the update at %s", from, rv)
			}
		}
	}
	mustOK(t, d.SetPaused(false))
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
