package indexer

import (
	"testing"

	clientfeatures "k8s.io/client-go/features"
	featuretesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"
)

func TestResourceVersionTracking(t *testing.T) {
	ix := newTestIndexer()
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers())
	a := newObj("ns", "a", "3")
	steps := []struct {
		name string
		do   func(s cache.Indexer) error
		want string
	}{
		{"initial", func(cache.Indexer) error { return nil }, ""},
		{"Add", func(s cache.Indexer) error { return s.Add(a) }, "3"},
		{"Update", func(s cache.Indexer) error { return s.Update(newObj("ns", "a", "5")) }, "5"},
		// Versions are recorded as they come, not compared.
		{"older Add", func(s cache.Indexer) error { return s.Add(newObj("ns", "b", "4")) }, "4"},
		{"tombstone Delete", func(s cache.Indexer) error {
			return s.Delete(cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: a})
		}, "4"},
		{"Delete of an absent key", func(s cache.Indexer) error { return s.Delete(newObj("ns", "gone", "8")) }, "8"},
		{"Bookmark", func(s cache.Indexer) error { s.Bookmark("9"); return nil }, "9"},
		{"Replace", func(s cache.Indexer) error { return s.Replace([]any{newObj("ns", "c", "2")}, "12") }, "12"},
		{"Add without a version", func(s cache.Indexer) error { return s.Add(newObj("ns", "d", "")) }, ""},
		{"Replace without a version", func(s cache.Indexer) error { return s.Replace(nil, "") }, ""},
	}
	for _, st := range steps {
		if err := st.do(ix); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := st.do(ref); err != nil {
			t.Fatalf("%s on client-go: %v", st.name, err)
		}
		equal(t, st.name+" (ours)", ix.LastStoreSyncResourceVersion(), st.want)
		equal(t, st.name+" (client-go)", ref.LastStoreSyncResourceVersion(), st.want)
		equal(t, st.name+" (stats)", ix.Stats().LastResourceVersion, st.want)
	}
}

func TestResourceVersionHiddenWithoutAtomicFIFO(t *testing.T) {
	featuretesting.SetFeatureDuringTest(t, clientfeatures.AtomicFIFO, false)
	ix := newTestIndexer()
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers())
	for _, s := range []cache.Indexer{ix, ref} {
		if err := s.Add(newObj("ns", "a", "7")); err != nil {
			t.Fatal(err)
		}
	}
	equal(t, "ours", ix.LastStoreSyncResourceVersion(), "")
	equal(t, "client-go", ref.LastStoreSyncResourceVersion(), "")
	equal(t, "stats still track it", ix.Stats().LastResourceVersion, "7")
}
