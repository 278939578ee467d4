package indexer

import (
	"errors"
	"slices"
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestTransaction(t *testing.T) {
	ix := newTestIndexer()
	ref := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers()).(cache.TransactionStore)
	a := newObj("ns", "a", "1", "x")
	first := []cache.Transaction{
		{Type: cache.TransactionTypeAdd, Object: a},
		{Type: cache.TransactionTypeAdd, Object: newObj("ns", "b", "2", "x", "y")},
		{Type: cache.TransactionTypeUpdate, Object: newObj("ns", "a", "3", "y")},
	}
	if err := ix.Transaction(first...); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	if err := ref.Transaction(first...); err != nil {
		t.Fatalf("first batch on client-go: %v", err)
	}
	equalStrings(t, "tag y", mustKeys(t, ix, "tags", "y"), []string{"ns/a", "ns/b"})
	equalStrings(t, "tag x", mustKeys(t, ix, "tags", "x"), []string{"ns/b"})
	equal(t, "rv after first batch", ix.LastStoreSyncResourceVersion(), "3")

	// A keyless object is skipped and reported; the rest still applies, and
	// the last applied object (a tombstone without metadata) leaves the
	// version alone.
	second := []cache.Transaction{
		{Type: cache.TransactionTypeAdd, Object: newObj("ns", "c", "4", "z")},
		{Type: cache.TransactionTypeAdd, Object: "no metadata"},
		{Type: cache.TransactionTypeDelete, Object: cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: nil}},
	}
	err := ix.Transaction(second...)
	refErr := ref.Transaction(second...)
	if err == nil || refErr == nil {
		t.Fatalf("second batch: got %v, client-go %v; want errors", err, refErr)
	}
	if !slices.Equal(err.SuccessfulIndices, []int{0, 2}) || err.TotalTransactions != 3 || len(err.Errors) != 1 {
		t.Fatalf("second batch error: %+v", err)
	}
	if !slices.Equal(err.SuccessfulIndices, refErr.SuccessfulIndices) || err.TotalTransactions != refErr.TotalTransactions {
		t.Fatalf("second batch error %+v differs from client-go's %+v", err, refErr)
	}
	var keyErr cache.KeyError
	if !errors.As(err.Errors[0], &keyErr) || keyErr.Obj != "no metadata" {
		t.Fatalf("second batch error: %#v, want a KeyError for the keyless object", err.Errors[0])
	}
	keys, _ := ix.SortedKeys()
	equalStrings(t, "keys", keys, []string{"ns/a", "ns/c"})
	equal(t, "rv after second batch", ix.LastStoreSyncResourceVersion(), "3")
	equal(t, "client-go rv after second batch", ref.(cache.Indexer).LastStoreSyncResourceVersion(), "3")
	st := ix.Stats()
	equal(t, "adds", st.Adds, 3)
	equal(t, "updates", st.Updates, 1)
	equal(t, "deletes", st.Deletes, 1)
	checkConsistent(t, ix)

	// Nothing to do: no error, no change.
	gen := ix.Generation()
	if err := ix.Transaction(); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	equal(t, "generation after empty batch", ix.Generation(), gen)
}
