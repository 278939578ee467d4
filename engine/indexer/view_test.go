package indexer

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestStatsAndGeneration(t *testing.T) {
	ix := newTestIndexer()
	gen := ix.Generation()
	step := func(what string, do func() error) {
		t.Helper()
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if g := ix.Generation(); g != gen+1 {
			t.Fatalf("%s: generation %d, want %d", what, g, gen+1)
		}
		gen++
	}
	step("Add a", func() error { return ix.Add(newObj("ns1", "a", "1", "x", "y")) })
	step("Add b", func() error { return ix.Add(newObj("ns2", "b", "2", "y")) })
	step("Update a", func() error { return ix.Update(newObj("ns1", "a", "3", "z")) })
	step("Add c", func() error { return ix.Add(newObj("ns2", "c", "4")) })
	step("Delete c", func() error { return ix.Delete(newObj("ns2", "c", "5")) })
	step("Delete absent", func() error { return ix.Delete(newObj("ns2", "none", "6")) })
	step("Bookmark", func() error { ix.Bookmark("7"); return nil })
	step("AddIndexers", func() error { return ix.AddIndexers(cache.Indexers{"first": firstIndex}) })

	want := Stats{
		Objects:             2,
		Indexes:             map[string]int{"namespace": 2, "tags": 2, "count": 1, "none": 0, "first": 2},
		LastResourceVersion: "7",
		Adds:                3,
		Updates:             1,
		Deletes:             2,
		Replaces:            0,
		Generation:          gen,
	}
	equal(t, "stats", ix.Stats(), want)

	step("Replace", func() error { return ix.Replace([]any{newObj("ns3", "d", "8")}, "9") })
	st := ix.Stats()
	equal(t, "objects after replace", st.Objects, 1)
	equal(t, "replaces", st.Replaces, 1)
	// d is new, a and b are gone.
	equal(t, "adds, updates, deletes after replace", [3]uint64{st.Adds, st.Updates, st.Deletes}, [3]uint64{4, 1, 4})
	equal(t, "indexes after replace", st.Indexes, map[string]int{"namespace": 1, "tags": 0, "count": 1, "none": 0, "first": 0})

	// Failed operations change nothing, not even the generation.
	if err := ix.Add("no metadata"); err == nil {
		t.Fatal("Add of a keyless object succeeded")
	}
	if err := ix.AddIndexers(cache.Indexers{"tags": tagsIndex}); err == nil {
		t.Fatal("conflicting AddIndexers succeeded")
	}
	equal(t, "generation after failures", ix.Generation(), gen)
	equal(t, "adds after failures", ix.Stats().Adds, 4)
}

func TestSortedKeysCarriesItsGeneration(t *testing.T) {
	ix := newTestIndexer()
	for _, n := range []string{"q", "a", "m"} {
		if err := ix.Add(newObj("ns", n, "1")); err != nil {
			t.Fatal(err)
		}
	}
	keys, gen := ix.SortedKeys()
	equalStrings(t, "keys", keys, []string{"ns/a", "ns/m", "ns/q"})
	equal(t, "generation", gen, ix.Generation())
	equal(t, "generation value", gen, 3)
	empty, gen0 := New(cache.MetaNamespaceKeyFunc, nil).SortedKeys()
	equalStrings(t, "empty store", empty, []string{})
	equal(t, "empty generation", gen0, 0)
}

func TestIndexEntriesOf(t *testing.T) {
	ix := newTestIndexer()
	if err := ix.Add(newObj("ns", "a", "1", "y", "x", "y")); err != nil {
		t.Fatal(err)
	}
	got := ix.IndexEntriesOf("ns/a")
	want := map[string][]string{"namespace": {"ns"}, "tags": {"x", "y"}, "count": {"n3"}, "none": {}}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for name, w := range want {
		equalStrings(t, "entries of "+name, got[name], w)
	}
	if got := ix.IndexEntriesOf("ns/missing"); got != nil {
		t.Fatalf("entries of a missing key: %v, want nil", got)
	}
}

// TestIndexEntriesOfReportsOnlyFiledValues: a handler that edits a cached
// object in place changes what the index functions compute without
// refiling the object; the entries must show where it is really filed.
func TestIndexEntriesOfReportsOnlyFiledValues(t *testing.T) {
	ix := newTestIndexer()
	o := newObj("ns", "a", "1", "x", "y")
	if err := ix.Add(o); err != nil {
		t.Fatal(err)
	}
	o.Tags = []string{"y", "z", "w"} // now computes n3 and y, z, w; filed under n2 and x, y
	got := ix.IndexEntriesOf("ns/a")
	equalStrings(t, "tags", got["tags"], []string{"y"})
	equalStrings(t, "count", got["count"], []string{})
	equalStrings(t, "namespace", got["namespace"], []string{"ns"})
}

func TestIndexNamesAndGetIndexers(t *testing.T) {
	given := testIndexers()
	ix := New(cache.DeletionHandlingMetaNamespaceKeyFunc, given)
	equalStrings(t, "names", ix.IndexNames(), []string{"count", "namespace", "none", "tags"})

	got := ix.GetIndexers()
	delete(got, "tags")
	equalStrings(t, "names after editing the copy", ix.IndexNames(), []string{"count", "namespace", "none", "tags"})
	if err := ix.AddIndexers(cache.Indexers{"first": firstIndex}); err != nil {
		t.Fatal(err)
	}
	if _, leaked := given["first"]; leaked {
		t.Fatal("AddIndexers changed the map given to New")
	}
	equal(t, "GetIndexers size", len(ix.GetIndexers()), 5)
}

func TestKeyErrors(t *testing.T) {
	ix := newTestIndexer()
	bad := "no metadata"
	for name, do := range map[string]func() error{
		"Add":    func() error { return ix.Add(bad) },
		"Update": func() error { return ix.Update(bad) },
		"Delete": func() error { return ix.Delete(bad) },
		"Get":    func() error { _, _, err := ix.Get(bad); return err },
	} {
		var keyErr cache.KeyError
		if err := do(); !errors.As(err, &keyErr) || keyErr.Obj != bad {
			t.Errorf("%s: got %v, want a KeyError for the object", name, err)
		}
	}
	equal(t, "stats after key errors", ix.Stats(), Stats{Indexes: map[string]int{"count": 0, "namespace": 0, "none": 0, "tags": 0}})
}
