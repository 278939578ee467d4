package tui

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// The compare fixture is the fifo-compare scenario frozen while paused:
// the same 90 pod events queued in a DeltaFIFO informer and a RealFIFO
// informer, plus a secrets informer with nothing to compare against.
//
// Event j (resourceVersion 2000+j) is, in order:
//   - j%15 == 4: Added default/api-(j/15), a pod the cache does not hold;
//   - j == 20: Updated default/web-9;
//   - j == 50: Deleted default/web-9 as a DeletedFinalStateUnknown carrying
//     the version of event 20 (a relist found it gone);
//   - otherwise Updated on the hot pod default/web-(j%3).
//
// The RealFIFO also holds a Bookmark (RV 2002) after the third event, as
// a RealFIFO emitting bookmarks does; the DeltaFIFO has no such item.
const (
	compareEvents   = 90
	compareHead     = 64 // rows of the head each snapshot carries
	compareBookmark = 3  // RealFIFO row index of the Bookmark item
)

type compareEvent struct {
	key   string
	delta cache.Delta
	at    time.Time
}

func comparePod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

// compareWorkload is the event list both queues were fed, oldest first.
func compareWorkload() []compareEvent {
	start := t0.Add(-6 * time.Second)
	out := make([]compareEvent, compareEvents)
	for j := range out {
		rv := fmt.Sprint(2000 + j)
		var key string
		var d cache.Delta
		switch {
		case j%15 == 4:
			name := fmt.Sprintf("api-%d", j/15)
			key, d = "default/"+name, cache.Delta{Type: cache.Added, Object: comparePod(name, rv)}
		case j == 20:
			key, d = "default/web-9", cache.Delta{Type: cache.Updated, Object: comparePod("web-9", rv)}
		case j == 50:
			key = "default/web-9"
			d = cache.Delta{Type: cache.Deleted, Object: cache.DeletedFinalStateUnknown{Key: key, Obj: comparePod("web-9", "2020")}}
		default:
			name := fmt.Sprintf("web-%d", j%3)
			key, d = "default/"+name, cache.Delta{Type: cache.Updated, Object: comparePod(name, rv)}
		}
		out[j] = compareEvent{key: key, delta: d, at: start.Add(time.Duration(j) * 40 * time.Millisecond)}
	}
	return out
}

// compareQueues lays the workload out as each queue holds it: DeltaFIFO
// rows per key in first-arrival order, RealFIFO rows per event with the
// Bookmark item; and the deltas queued per key for the QueueReader.
func compareQueues() (df, rf []source.QueueItem, byKey map[string]map[string]cache.Deltas) {
	evs := compareWorkload()
	byKey = map[string]map[string]cache.Deltas{"pods-deltafifo": {}, "pods-realfifo": {}}
	row := map[string]int{}
	for j, e := range evs {
		if j == compareBookmark {
			rf = append(rf, source.QueueItem{Types: []cache.DeltaType{cache.Bookmark}, Enqueued: e.at.Add(-time.Millisecond)})
			byKey["pods-realfifo"][""] = cache.Deltas{{Type: cache.Bookmark, Object: cache.BookmarkInfo{ResourceVersion: "2002"}}}
		}
		rf = append(rf, source.QueueItem{Key: e.key, Types: []cache.DeltaType{e.delta.Type}, Enqueued: e.at})
		if i, ok := row[e.key]; ok {
			df[i].Types = append(df[i].Types, e.delta.Type)
		} else {
			row[e.key] = len(df)
			df = append(df, source.QueueItem{Key: e.key, Types: []cache.DeltaType{e.delta.Type}, Enqueued: e.at})
		}
		for _, inf := range []string{"pods-deltafifo", "pods-realfifo"} {
			byKey[inf][e.key] = append(byKey[inf][e.key], e.delta)
		}
	}
	return df, rf, byKey
}

// compareStore is what both caches hold: the hot pods and web-9 at
// versions older than anything queued; the api pods are not cached yet.
func compareStore() *sourcetest.Store {
	var items []sourcetest.Item
	for _, n := range []int{0, 1, 2, 9} {
		name := fmt.Sprintf("web-%d", n)
		items = append(items, sourcetest.Item{Key: "default/" + name, Object: comparePod(name, fmt.Sprint(1990+n)),
			Indexes: map[string][]string{"namespace": {"default"}}})
	}
	return sourcetest.NewStore(500, items...)
}

// compareConfig is what the compare sources replay.
func compareConfig() sourcetest.Config {
	df, rf, _ := compareQueues()
	store := compareStore()
	cfg := sourcetest.Config{
		Kind: "demo", Title: "demo · fifo-compare",
		Notes:  []string{"500 updates hit three hot pods: compare the queues"},
		Stores: map[string]source.StoreReader{"pods-deltafifo": store, "pods-realfifo": store, "secrets": secretStore()},
	}
	for i := 0; i < fixtureFrames; i++ {
		t := t0.Add(time.Duration(i) * time.Second)
		cfg.Frames = append(cfg.Frames, []source.Informer{
			comparePodsSnapshot("pods-deltafifo", source.DeltaFIFO, df, compareEvents-len(df), i, t),
			comparePodsSnapshot("pods-realfifo", source.RealFIFO, rf, 0, i, t),
			secretsSnapshot(i, t),
		})
	}
	return cfg
}

// newCompareSource is the compare fixture, paused, with every control but
// no QueueReader.
func newCompareSource() *controlledSource {
	ctl := &sourcetest.Controller{}
	ctl.SetPausedState(true)
	return newControlledSource(compareConfig(), ctl)
}

func comparePodsSnapshot(name string, kind source.QueueKind, rows []source.QueueItem, coalesced, i int, t time.Time) source.Informer {
	n := uint64(i)
	deltas := 0
	for _, r := range rows {
		deltas += len(r.Types)
	}
	head := rows
	if len(head) > compareHead {
		head = head[:compareHead]
	}
	watched := 400 + 9*n
	return source.Informer{
		Name: name, Resource: "pods", QueueKind: kind, Taken: t, Started: true, Synced: true, Paused: true,
		LastSyncResourceVersion: "2089",
		Queue: source.Queue{
			Kind: kind, Depth: len(rows), Deltas: deltas, OldestEnqueued: rows[0].Enqueued,
			Added:  source.DeltaCounts{Added: 300 + 2*n, Updated: 100 + 7*n},
			Popped: source.DeltaCounts{Added: 300, Updated: 10},
			Pops:   310, Coalesced: uint64(coalesced), Synced: true, Head: head,
		},
		Store: source.Cache{Objects: 300, Indexes: map[string]int{"namespace": 6}, Adds: 300, Updates: 10, Generation: 500},
		Reflector: source.Reflector{
			Lists: 1, ListPages: 1, ListedItems: 300, LastListItems: 300, LastListTime: 3 * time.Millisecond,
			Watches: 1, WatchOpen: true, WatchSince: t0.Add(-30 * time.Second),
			WatchEvents: watched, WatchAdded: 2 * n, WatchModified: watched - 2*n, WatchBookmarks: 4,
		},
		Listeners: []source.Listener{
			{Name: "fast", Capacity: 1024, HighWater: 12, Delivered: source.Delivered{Add: 300, Update: 10},
				LatencyP50: 100 * time.Microsecond, LatencyP99: 900 * time.Microsecond, Synced: true},
			{Name: "slow", Pending: 3, Capacity: 1024, HighWater: 40, Delivered: source.Delivered{Add: 300, Update: 7},
				LatencyP50: 20 * time.Millisecond, LatencyP99: 60 * time.Millisecond, Synced: true},
		},
	}
}

// newReaderSource is the compare fixture as the demo serves it: every
// capability, and a QueueReader over the compare workload whose reads
// the Controls record.
func newReaderSource() *sourcetest.Demo {
	_, _, byKey := compareQueues()
	ctl := &sourcetest.Controller{}
	ctl.SetPausedState(true)
	for inf, keys := range byKey {
		for key, deltas := range keys {
			ctl.SetQueued(inf, key, deltas)
		}
	}
	return sourcetest.NewDemo(sourcetest.New(compareConfig()), ctl)
}

// compareHarness is a harness at w×h over src with every frame delivered.
func compareHarness(t testing.TB, src source.Source, w, ht int) *harness {
	h := newHarness(t, src)
	h.size(w, ht)
	h.frames(fixtureFrames)
	return h
}
