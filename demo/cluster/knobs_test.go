package cluster

import (
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A narrowed client's truth is what its own LIST returns: the checks of a
// quiet informer compare its cache with it.
func TestSnapshotOfMatchesANarrowedList(t *testing.T) {
	t.Parallel()
	c := New(Options{Seed: 3, Clock: fakeClock()})
	if err := c.Populate(Pods, 60); err != nil {
		t.Fatal(err)
	}
	narrowed := false // some selector kept some pods but not all
	for _, sel := range []Selector{
		{},
		{Namespace: "payments"},
		{LabelSelector: "tier=system"},
		{LabelSelector: "app=nobody-has-this"},
		{FieldSelector: "metadata.namespace=default"},
	} {
		got, err := c.SnapshotOf(Pods, sel)
		if err != nil {
			t.Fatalf("%+v: %v", sel, err)
		}
		items, _ := mustList(t, mustLW(t, c, Pods, sel), metav1.ListOptions{})
		var want []string
		for _, obj := range items {
			want = append(want, keyOf(obj))
			m, _ := meta.Accessor(obj)
			if g, ok := got[keyOf(obj)]; !ok || rvOf(g) != m.GetResourceVersion() {
				t.Errorf("%+v: %s at RV %s is listed but not in the snapshot as such", sel, keyOf(obj), m.GetResourceVersion())
			}
		}
		narrowed = narrowed || (len(got) > 0 && len(got) < 60)
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, slices.Sorted(slices.Values(want))) {
			t.Errorf("%+v: snapshot has %d keys, the list %d", sel, len(keys), len(want))
		}
	}
	if !narrowed {
		t.Error("no selector narrowed the pods, so the comparison proves little")
	}
	if _, err := c.SnapshotOf(Pods, Selector{LabelSelector: "=="}); err == nil {
		t.Error("an unparsable selector was accepted")
	}
	if _, err := c.SnapshotOf("widgets", Selector{}); err == nil {
		t.Error("an unknown resource was accepted")
	}
}

// A client without bookmarks would wait forever for the bookmark that ends
// a streamed list, so it says it cannot stream and its reflector LISTs.
func TestNoBookmarksClientLists(t *testing.T) {
	t.Parallel()
	c := New(Options{WatchList: true})
	lw := mustLW(t, c, Pods, Selector{})
	if lw.IsWatchListSemanticsUnSupported() {
		t.Fatal("a client with bookmarks on a WatchList server says it cannot stream lists")
	}
	lw.SetBookmarks(false)
	if !lw.IsWatchListSemanticsUnSupported() {
		t.Error("a client without bookmarks says it can stream lists, whose end it would never see")
	}
}
