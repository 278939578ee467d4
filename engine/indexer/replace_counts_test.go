package indexer

import "testing"

// A Replace counts what it did to each key, as the same list applied
// object by object would: an add for a new key, an update for one already
// stored, a delete for one the list no longer has. A refused Replace
// counts nothing.
func TestReplaceCountsEachKey(t *testing.T) {
	ix := newTestIndexer()
	for _, name := range []string{"a", "b", "c"} {
		if err := ix.Add(newObj("ns", name, "1")); err != nil {
			t.Fatal(err)
		}
	}
	counts := func() [4]uint64 {
		s := ix.Stats()
		return [4]uint64{s.Adds, s.Updates, s.Deletes, s.Replaces}
	}
	relist := []any{newObj("ns", "b", "2"), newObj("ns", "c", "2"), newObj("ns", "d", "2"), newObj("ns", "e", "2")}
	if err := ix.Replace(relist, "2"); err != nil {
		t.Fatal(err)
	}
	// adds: a, b, c, then d and e; updates: b and c; deletes: a.
	equal(t, "adds, updates, deletes, replaces after a relist", counts(), [4]uint64{5, 2, 1, 1})

	if err := ix.Replace([]any{newObj("ns", "f", "3"), "no metadata"}, "3"); err == nil {
		t.Fatal("a Replace with a keyless object succeeded")
	}
	equal(t, "after a refused Replace", counts(), [4]uint64{5, 2, 1, 1})
	equal(t, "objects", ix.Stats().Objects, 4)
}
