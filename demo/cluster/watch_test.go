package cluster

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

func rvString(v uint64) string { return strconv.FormatUint(v, 10) }

// script applies a fixed mix of writes to pods and configmaps and returns
// what a pod watcher must see.
func script(t *testing.T, c *Cluster) []change {
	t.Helper()
	var want []change
	record := func(typ watch.EventType, obj runtime.Object, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, change{typ, keyOf(obj), rvOf(obj)})
	}
	keys := c.Keys(Pods)
	obj, err := c.CreateRandom(Pods, "payments")
	record(watch.Added, obj, err)
	created := keyOf(obj)
	if _, err := c.Update(ConfigMaps, c.Keys(ConfigMaps)[0]); err != nil { // other kinds share the counter
		t.Fatal(err)
	}
	obj, err = c.Update(Pods, keys[3])
	record(watch.Modified, obj, err)
	obj, err = c.Update(Pods, created)
	record(watch.Modified, obj, err)
	obj, err = c.Delete(Pods, keys[5])
	record(watch.Deleted, obj, err)
	if _, err := c.CreateRandom(ConfigMaps, ""); err != nil {
		t.Fatal(err)
	}
	obj, err = c.Delete(Pods, created)
	record(watch.Deleted, obj, err)
	obj, err = c.Update(Pods, keys[3])
	record(watch.Modified, obj, err)
	return want
}

func TestWatchFromResourceVersionReplaysExactlyTheLaterEvents(t *testing.T) {
	c := New(Options{Seed: 10})
	if err := c.Populate(Pods, 20); err != nil {
		t.Fatal(err)
	}
	if err := c.Populate(ConfigMaps, 5); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	from := c.ResourceVersion()
	want := script(t, c)

	for i := range []int{0, 2} {
		start := rvString(from)
		if i > 0 {
			start = want[i-1].RV
		}
		w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: start})
		var got []change
		for range want[i:] {
			got = append(got, changeOf(next(t, w)))
		}
		sameChanges(t, got, want[i:])
	}

	// A live watch continues with the next write and nothing in between.
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion())})
	obj, err := c.Update(Pods, c.Keys(Pods)[0])
	if err != nil {
		t.Fatal(err)
	}
	sameChanges(t, []change{changeOf(next(t, w))}, []change{{watch.Modified, keyOf(obj), rvOf(obj)}})

	// Deleted events carry the last state with the deletion's version.
	del, err := c.Delete(Pods, c.Keys(Pods)[1])
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, w)
	if ev.Type != watch.Deleted || rvOf(ev.Object) != rvString(c.ResourceVersion()) || keyOf(ev.Object) != keyOf(del) {
		t.Fatalf("got %v, want DELETED %s at %d", changeOf(ev), keyOf(del), c.ResourceVersion())
	}
	if pod := ev.Object.(*corev1.Pod); pod.Spec.NodeName == "" || pod.UID == "" {
		t.Fatal("DELETED event lost the object's content")
	}
}

func TestWatchFromExpiredResourceVersionIsGone(t *testing.T) {
	c := New(Options{Seed: 11, HistorySize: 5})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	old := c.ResourceVersion()
	for range 10 {
		if _, err := c.Update(Pods, c.Keys(Pods)[0]); err != nil {
			t.Fatal(err)
		}
	}
	// History holds the last 5 events: resuming after the 5th-last works,
	// one version earlier is gone.
	oldest := c.ResourceVersion() - 5
	if got := len(untilTypeCount(t, mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(oldest)}), 5)); got != 5 {
		t.Fatalf("resumed watch replayed %d events, want 5", got)
	}

	for _, from := range []uint64{old, oldest - 1} {
		w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(from)})
		evs := untilClosed(t, w)
		if len(evs) != 1 || evs[0].Type != watch.Error {
			t.Fatalf("watch from %d: got %v, want one ERROR event then close", from, evs)
		}
		status, ok := evs[0].Object.(*metav1.Status)
		if !ok || status.Code != 410 || status.Reason != metav1.StatusReasonExpired {
			t.Fatalf("watch from %d: error object %#v, want a 410 Expired Status", from, evs[0].Object)
		}
		// This is exactly how the reflector decodes it (and then relists).
		if err := apierrors.FromObject(evs[0].Object); !apierrors.IsResourceExpired(err) {
			t.Fatalf("reflector would see %v, not an expired error", err)
		}
	}

	// ExpireHistory makes even the newest handed-out version too old.
	latest := c.ResourceVersion()
	c.ExpireHistory()
	evs := untilClosed(t, mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(latest)}))
	if len(evs) != 1 || !apierrors.IsResourceExpired(apierrors.FromObject(evs[0].Object)) {
		t.Fatalf("after ExpireHistory: %v, want one 410", evs)
	}
	// ExpireHistory also closed the resumed watch.
	if s := c.Stats(); s.Expired != 3 || s.WatchesDropped != 1 {
		t.Fatalf("stats: %d expired, %d dropped; want 3, 1", s.Expired, s.WatchesDropped)
	}
}

// untilTypeCount reads n non-bookmark events.
func untilTypeCount(t *testing.T, w watch.Interface, n int) []watch.Event {
	t.Helper()
	var out []watch.Event
	for range n {
		out = append(out, nextNonBookmark(t, w))
	}
	return out
}

func TestWatchBookmarks(t *testing.T) {
	c := New(Options{Seed: 12, BookmarkFrequency: 5 * time.Millisecond})
	if err := c.Populate(Pods, 4); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	from := rvString(c.ResourceVersion())
	with := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: from, AllowWatchBookmarks: true})
	without := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: from})

	ev := next(t, with)
	pod, ok := ev.Object.(*corev1.Pod)
	if ev.Type != watch.Bookmark || !ok || pod.ResourceVersion != from || pod.Name != "" {
		t.Fatalf("first event %s %#v, want a bare *Pod bookmark at %s", ev.Type, ev.Object, from)
	}
	// Writes to another kind advance the shared version; bookmarks follow.
	if _, err := c.CreateRandom(Secrets, ""); err != nil {
		t.Fatal(err)
	}
	waitfor.True(t, "a bookmark at the secret's version", func() bool {
		ev := next(t, with)
		return ev.Type == watch.Bookmark && rvOf(ev.Object) == rvString(c.ResourceVersion())
	})
	for range 3 {
		if ev := next(t, with); ev.Type != watch.Bookmark {
			t.Fatalf("got %s, want periodic bookmarks", ev.Type)
		}
	}
	upd, err := c.Update(Pods, c.Keys(Pods)[0])
	if err != nil {
		t.Fatal(err)
	}
	// The stream without bookmarks has had several intervals to send one;
	// its first event must be the update.
	sameChanges(t, []change{changeOf(next(t, without))}, []change{{watch.Modified, keyOf(upd), rvOf(upd)}})
	// A bookmark never goes back behind an event already sent.
	got := nextNonBookmark(t, with)
	sameChanges(t, []change{changeOf(got)}, []change{{watch.Modified, keyOf(upd), rvOf(upd)}})
	ev = next(t, with)
	bookmarkRV, _ := strconv.ParseUint(rvOf(ev.Object), 10, 64)
	updRV, _ := strconv.ParseUint(rvOf(upd), 10, 64)
	if ev.Type != watch.Bookmark || bookmarkRV < updRV {
		t.Fatalf("after the update: %v, want a bookmark at %d or later", changeOf(ev), updRV)
	}
}

func TestWatchInitialEventsWithoutResourceVersion(t *testing.T) {
	c := New(Options{Seed: 13})
	if err := c.Populate(ConfigMaps, 30); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, ConfigMaps, Selector{})
	for _, rv := range []string{"", "0"} {
		w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rv})
		var want []change
		snap := c.Snapshot(ConfigMaps)
		for _, k := range c.Keys(ConfigMaps) {
			want = append(want, change{watch.Added, k, rvOf(snap[k])})
		}
		var got []change
		for range want {
			got = append(got, changeOf(next(t, w)))
		}
		sameChanges(t, got, want)
		upd, err := c.Update(ConfigMaps, want[7].Key)
		if err != nil {
			t.Fatal(err)
		}
		sameChanges(t, []change{changeOf(next(t, w))}, []change{{watch.Modified, keyOf(upd), rvOf(upd)}})
	}
}

func TestWatchListStreamingProtocol(t *testing.T) {
	streamOpts := func(rv string) metav1.ListOptions {
		return metav1.ListOptions{
			ResourceVersion:      rv,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			SendInitialEvents:    ptr.To(true),
			AllowWatchBookmarks:  true,
		}
	}
	t.Run("supported", func(t *testing.T) {
		c := New(Options{Seed: 14, WatchList: true, BookmarkFrequency: -1})
		if err := c.Populate(Pods, 25); err != nil {
			t.Fatal(err)
		}
		lw := mustLW(t, c, Pods, Selector{Namespace: "default"})
		old := rvString(c.ResourceVersion() - 10)
		c.ExpireHistory() // a not-older-than stream does not need history
		for _, rv := range []string{"", "0", old} {
			w := mustWatch(t, lw, streamOpts(rv))
			var want []change
			for k, v := range serverRVs(c, Pods, &lw.filter) {
				want = append(want, change{watch.Added, k, v})
			}
			sortChanges(want)
			var got []change
			for range want {
				got = append(got, changeOf(next(t, w)))
			}
			sameChanges(t, got, want)
			end := next(t, w)
			m, _ := meta.Accessor(end.Object)
			if end.Type != watch.Bookmark || m.GetResourceVersion() != rvString(c.ResourceVersion()) ||
				m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				t.Fatalf("rv=%q: stream ended with %s %v, want the initial-events-end bookmark at %d",
					rv, end.Type, m.GetAnnotations(), c.ResourceVersion())
			}
		}
		if s := c.Stats(); s.WatchListStreams != 3 || s.Lists != 0 {
			t.Fatalf("stats %+v", s)
		}
	})
	t.Run("unsupported", func(t *testing.T) {
		c := New(Options{Seed: 14})
		lw := mustLW(t, c, Pods, Selector{})
		if !lw.IsWatchListSemanticsUnSupported() {
			t.Fatal("the ListerWatcher must tell reflectors not to stream")
		}
		_, err := lw.Watch(streamOpts(""))
		if !apierrors.IsInvalid(err) {
			t.Fatalf("got %v, want the 422 of a server without WatchList", err)
		}
		if s := c.Stats(); s.Watches != 0 || s.Rejected != 1 {
			t.Fatalf("stats %+v", s)
		}
	})
}

func sortChanges(cs []change) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Key < cs[j-1].Key; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

func TestWatchSelectorTransitions(t *testing.T) {
	c := New(Options{Seed: 15})
	if err := c.Populate(Pods, 10); err != nil {
		t.Fatal(err)
	}
	key := c.Keys(Pods)[4]
	ns, name, _ := cutKey(key)
	canary := mustWatch(t, mustLW(t, c, Pods, Selector{LabelSelector: "track=canary"}),
		metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion())})
	byName := mustWatch(t, mustLW(t, c, Pods, Selector{Namespace: ns}),
		metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion()), FieldSelector: "metadata.name=" + name})

	setTrack := func(track string) runtime.Object {
		t.Helper()
		pod := c.Snapshot(Pods)[key].(*corev1.Pod)
		pod.Labels["track"] = track
		pod.Annotations["note"] = track + rvOf(pod)
		obj, err := c.UpdateObject(Pods, pod)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	a := setTrack("canary")
	b := setTrack("canary")
	d := setTrack("stable")
	if _, err := c.Update(Pods, c.Keys(Pods)[0]); err != nil { // another pod: neither watch sees it
		t.Fatal(err)
	}
	e := setTrack("canary")

	var got []change
	for range 4 {
		got = append(got, changeOf(next(t, canary)))
	}
	sameChanges(t, got, []change{
		{watch.Added, key, rvOf(a)},
		{watch.Modified, key, rvOf(b)},
		{watch.Deleted, key, rvOf(d)}, // leaves the selector: old state at the new version
		{watch.Added, key, rvOf(e)},
	})
	got = nil
	for range 4 {
		got = append(got, changeOf(next(t, byName)))
	}
	sameChanges(t, got, []change{
		{watch.Modified, key, rvOf(a)}, {watch.Modified, key, rvOf(b)},
		{watch.Modified, key, rvOf(d)}, {watch.Modified, key, rvOf(e)},
	})

	// A conflicting resourceVersion is refused, as by the API server.
	stale := c.Snapshot(Pods)[key].(*corev1.Pod)
	stale.ResourceVersion = rvOf(a)
	if _, err := c.UpdateObject(Pods, stale); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want 409 Conflict", err)
	}
}
