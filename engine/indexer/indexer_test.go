package indexer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestMultiValueIndex(t *testing.T) {
	ix := newTestIndexer()
	if err := ix.Add(newObj("ns", "a", "1", "x", "y", "x")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(newObj("ns", "b", "2", "y")); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "tag x", mustKeys(t, ix, "tags", "x"), []string{"ns/a"})
	equalStrings(t, "tag y", mustKeys(t, ix, "tags", "y"), []string{"ns/a", "ns/b"})
	equalStrings(t, "tag values", sortedValues(ix, "tags"), []string{"x", "y"})
	equalStrings(t, "none values", sortedValues(ix, "none"), []string{})
	byY, err := ix.ByIndex("tags", "y")
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "ByIndex y", keysOf(t, byY), []string{"ns/a", "ns/b"})
	checkConsistent(t, ix)
}

func TestUpdateMovesBetweenValues(t *testing.T) {
	ix := newTestIndexer()
	if err := ix.Add(newObj("ns", "a", "1", "x", "y")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(newObj("ns", "b", "2", "y")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(newObj("ns", "a", "3", "y", "z", "w")); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "tag x", mustKeys(t, ix, "tags", "x"), []string{})
	equalStrings(t, "tag y", mustKeys(t, ix, "tags", "y"), []string{"ns/a", "ns/b"})
	equalStrings(t, "tag z", mustKeys(t, ix, "tags", "z"), []string{"ns/a"})
	equalStrings(t, "tag values", sortedValues(ix, "tags"), []string{"w", "y", "z"})
	// The single-value index moves too: a goes from n2 to n3, and n2 is gone.
	equalStrings(t, "count values", sortedValues(ix, "count"), []string{"n1", "n3"})
	equalStrings(t, "count n3", mustKeys(t, ix, "count", "n3"), []string{"ns/a"})
	checkConsistent(t, ix)
}

func TestEmptyValueSetsAreRemoved(t *testing.T) {
	ix := newTestIndexer()
	a := newObj("ns1", "a", "1", "x", "y")
	b := newObj("ns2", "b", "2", "y")
	for _, o := range []*obj{a, b} {
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Update(newObj("ns1", "a", "3")); err != nil { // a leaves x and y
		t.Fatal(err)
	}
	equalStrings(t, "tag values after a left", sortedValues(ix, "tags"), []string{"y"})
	if err := ix.Delete(b); err != nil {
		t.Fatal(err)
	}
	if err := ix.Delete(cache.DeletedFinalStateUnknown{Key: "ns1/a", Obj: a}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"namespace", "tags", "count", "none"} {
		equalStrings(t, name+" values", sortedValues(ix, name), []string{})
	}
	ix.mu.RLock()
	for name, idx := range ix.indices {
		if len(idx) != 0 {
			t.Errorf("index %q still holds %d values", name, len(idx))
		}
	}
	ix.mu.RUnlock()
	equal(t, "stats indexes", ix.Stats().Indexes, map[string]int{"count": 0, "namespace": 0, "none": 0, "tags": 0})
}

func TestReplaceRebuildsIndexes(t *testing.T) {
	ix := newTestIndexer()
	for _, o := range []*obj{newObj("ns1", "a", "1", "x"), newObj("ns1", "b", "2", "y"), newObj("ns2", "c", "3", "x")} {
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	// A repeated key keeps its last object, as in client-go.
	list := []any{newObj("ns3", "d", "10", "q"), newObj("ns1", "a", "11", "r"), newObj("ns3", "d", "12", "s", "t")}
	if err := ix.Replace(list, "20"); err != nil {
		t.Fatal(err)
	}
	keys, _ := ix.SortedKeys()
	equalStrings(t, "keys", keys, []string{"ns1/a", "ns3/d"})
	equalStrings(t, "namespaces", sortedValues(ix, "namespace"), []string{"ns1", "ns3"})
	equalStrings(t, "tags", sortedValues(ix, "tags"), []string{"r", "s", "t"})
	equalStrings(t, "tag s", mustKeys(t, ix, "tags", "s"), []string{"ns3/d"})
	equalStrings(t, "tag x", mustKeys(t, ix, "tags", "x"), []string{})
	equal(t, "rv", ix.LastStoreSyncResourceVersion(), "20")
	checkConsistent(t, ix)

	// A list with a keyless item fails as a whole and changes nothing.
	before := ix.Generation()
	err := ix.Replace([]any{newObj("ns9", "z", "30"), "no metadata"}, "30")
	var keyErr cache.KeyError
	if !errors.As(err, &keyErr) || keyErr.Obj != "no metadata" {
		t.Fatalf("Replace with a keyless item: got %v, want a KeyError for it", err)
	}
	keys, _ = ix.SortedKeys()
	equalStrings(t, "keys after failed replace", keys, []string{"ns1/a", "ns3/d"})
	equal(t, "rv after failed replace", ix.LastStoreSyncResourceVersion(), "20")
	equal(t, "generation after failed replace", ix.Generation(), before)

	if err := ix.Replace(nil, "40"); err != nil {
		t.Fatal(err)
	}
	keys, _ = ix.SortedKeys()
	equalStrings(t, "keys after empty replace", keys, []string{})
	equalStrings(t, "tags after empty replace", sortedValues(ix, "tags"), []string{})
	checkConsistent(t, ix)
}

func TestAddIndexersIndexesExistingItems(t *testing.T) {
	ix := New(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{"tags": tagsIndex})
	for _, o := range []*obj{newObj("ns1", "a", "1", "x", "y"), newObj("ns1", "b", "2"), newObj("ns2", "c", "3", "y")} {
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.AddIndexers(cache.Indexers{"first": firstIndex, "namespace": cache.MetaNamespaceIndexFunc}); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "names", ix.IndexNames(), []string{"first", "namespace", "tags"})
	equalStrings(t, "first x", mustKeys(t, ix, "first", "x"), []string{"ns1/a"})
	equalStrings(t, "first y", mustKeys(t, ix, "first", "y"), []string{"ns2/c"})
	equalStrings(t, "namespace ns1", mustKeys(t, ix, "namespace", "ns1"), []string{"ns1/a", "ns1/b"})
	checkConsistent(t, ix)

	// A conflicting name rejects the whole call, like client-go, with the
	// same message.
	conflicting := cache.Indexers{"tags": tagsIndex, "extra": noneIndex, "first": firstIndex}
	err := ix.AddIndexers(conflicting)
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{"tags": tagsIndex, "first": firstIndex})
	refErr := ref.AddIndexers(conflicting)
	if err == nil || refErr == nil || err.Error() != refErr.Error() {
		t.Fatalf("conflict: got %v, client-go %v", err, refErr)
	}
	equal(t, "conflict message", err.Error(), "indexer conflict: map[first:{} tags:{}]")
	equalStrings(t, "names after conflict", ix.IndexNames(), []string{"first", "namespace", "tags"})
	if _, ok := ix.GetIndexers()["extra"]; ok {
		t.Fatal("a rejected AddIndexers call registered a name")
	}
	if err := ix.AddIndexers(nil); err != nil {
		t.Fatalf("AddIndexers(nil): %v", err)
	}
}

func TestIndexKeysAreSorted(t *testing.T) {
	ix := newTestIndexer()
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers())
	names := []string{"m", "c", "x", "a", "q", "b", "z", "k"}
	for _, n := range names {
		for _, s := range []cache.Indexer{ix, ref} {
			if err := s.Add(newObj("ns", n, "1", "all")); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{"ns/a", "ns/b", "ns/c", "ns/k", "ns/m", "ns/q", "ns/x", "ns/z"}
	equalStrings(t, "ours", mustKeys(t, ix, "tags", "all"), want)
	equalStrings(t, "client-go", mustKeys(t, ref, "tags", "all"), want)
}

func TestIndexIsTheUnionOfTheObjectsValues(t *testing.T) {
	ix := newTestIndexer()
	for _, o := range []*obj{newObj("ns", "a", "1", "x"), newObj("ns", "b", "2", "x", "y"), newObj("ns", "c", "3", "z"), newObj("ns", "d", "4", "w")} {
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		probe []string
		want  []string
	}{
		{[]string{"x"}, []string{"ns/a", "ns/b"}},
		{[]string{"x", "y"}, []string{"ns/a", "ns/b"}}, // b once, not twice
		{[]string{"y", "z", "nope"}, []string{"ns/b", "ns/c"}},
		{[]string{"nope"}, []string{}},
		{nil, []string{}},
	}
	for _, c := range cases {
		got, err := ix.Index("tags", newObj("other", "probe", "", c.probe...))
		if err != nil {
			t.Fatal(err)
		}
		equalStrings(t, "Index "+strings.Join(c.probe, ","), keysOf(t, got), c.want)
	}
}

func TestUnknownIndexName(t *testing.T) {
	ix := newTestIndexer()
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers())
	for _, s := range []cache.Indexer{ix, ref} {
		if err := s.Add(newObj("ns", "a", "1", "x")); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, err, refErr error) {
		t.Helper()
		if err == nil || refErr == nil || !strings.EqualFold(err.Error(), refErr.Error()) {
			t.Fatalf("%s: got %v, client-go %v", what, err, refErr)
		}
		var unknown UnknownIndexError
		if !errors.As(err, &unknown) || unknown.Name != "bogus" {
			t.Fatalf("%s: got %#v, want UnknownIndexError{bogus}", what, err)
		}
	}
	_, err := ix.Index("bogus", newObj("ns", "a", ""))
	_, refErr := ref.Index("bogus", newObj("ns", "a", ""))
	check("Index", err, refErr)
	_, err = ix.IndexKeys("bogus", "x")
	_, refErr = ref.IndexKeys("bogus", "x")
	check("IndexKeys", err, refErr)
	_, err = ix.ByIndex("bogus", "x")
	_, refErr = ref.ByIndex("bogus", "x")
	check("ByIndex", err, refErr)
	equalStrings(t, "ListIndexFuncValues", ix.ListIndexFuncValues("bogus"), []string{})
}

func TestIndexFunctionErrors(t *testing.T) {
	ix := newTestIndexer()
	// A query passes the index function's error on.
	if _, err := ix.Index("tags", "not an obj"); err == nil || !strings.Contains(err.Error(), "not an *obj") {
		t.Fatalf("Index with a failing index function: %v", err)
	}
	// A write cannot keep the indexes consistent, so it panics as client-go
	// does, and the lock is released.
	failing := New(func(o any) (string, error) { return o.(string), nil }, cache.Indexers{"tags": tagsIndex})
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("Add with a failing index function did not panic")
			}
		}()
		_ = failing.Add("plain string")
	}()
	failing.Bookmark("5") // would deadlock if the write lock were still held
	equal(t, "rv after the panic", failing.LastStoreSyncResourceVersion(), "5")
}

// ReplaceAll says what it replaced, which an informer's relist hands its
// handlers: each listed object's key in list order, what was stored
// before under every key, and the keys the list no longer has.
func TestReplaceAllSaysWhatItReplaced(t *testing.T) {
	ix := newTestIndexer()
	a, b, c := newObj("ns1", "a", "1"), newObj("ns1", "b", "2"), newObj("ns2", "c", "3")
	for _, o := range []*obj{a, b, c} {
		if err := ix.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	before := ix.Stats()
	list := []any{newObj("ns3", "d", "10"), newObj("ns1", "a", "11"), newObj("ns3", "d", "12")}
	r, err := ix.ReplaceAll(list, "20")
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "keys", r.Keys, []string{"ns3/d", "ns1/a", "ns3/d"})
	gone := slices.Sorted(slices.Values(r.Gone))
	equalStrings(t, "gone", gone, []string{"ns1/b", "ns2/c"})
	if len(r.Old) != 3 || r.Old["ns1/a"] != a || r.Old["ns1/b"] != b || r.Old["ns2/c"] != c {
		t.Errorf("old %v; want a, b and c as they were stored", r.Old)
	}
	keys, _ := ix.SortedKeys()
	equalStrings(t, "stored keys", keys, []string{"ns1/a", "ns3/d"})
	after := ix.Stats()
	// d added, a updated, b and c deleted: as Replace counts them.
	equal(t, "adds", after.Adds-before.Adds, 1)
	equal(t, "updates", after.Updates-before.Updates, 1)
	equal(t, "deletes", after.Deletes-before.Deletes, 2)
	checkConsistent(t, ix)

	// Handed over: later writes to the store do not reach it.
	if err := ix.Add(newObj("ns1", "b", "30")); err != nil {
		t.Fatal(err)
	}
	if r.Old["ns1/b"] != b {
		t.Errorf("the store wrote into the map it handed over: ns1/b is %v", r.Old["ns1/b"])
	}

	// A keyless item fails the whole list and reports nothing.
	r, err = ix.ReplaceAll([]any{newObj("ns9", "z", "40"), "no metadata"}, "40")
	var keyErr cache.KeyError
	if !errors.As(err, &keyErr) || r.Keys != nil || r.Old != nil || r.Gone != nil {
		t.Fatalf("ReplaceAll with a keyless item: %+v, %v; want nothing and a KeyError", r, err)
	}
}
