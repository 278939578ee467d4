package indexer

import (
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// rvMetrics records the store resource version gauge's updates; the queue
// metrics are never asked of a store.
type rvMetrics struct {
	mu  sync.Mutex
	set []float64
}

func (m *rvMetrics) NewQueuedItemMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	panic("a store asked for the queue depth metric")
}

func (m *rvMetrics) NewProcessingLatencyMetric(cache.InformerNameAndResource) cache.HistogramMetric {
	panic("a store asked for the processing latency metric")
}

func (m *rvMetrics) NewStoreResourceVersionMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return m
}

func (m *rvMetrics) Set(v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set = append(m.set, v)
}

func (m *rvMetrics) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprint(m.set)
}

// rvStore is what both stores offer that changes the resourceVersion.
type rvStore interface {
	cache.Indexer
	cache.TransactionStore
}

func reservedID(t *testing.T, name string) cache.InformerNameAndResource {
	t.Helper()
	n, err := cache.NewInformerName(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Release)
	return n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
}

// TestStoreResourceVersionMetricMatchesClientGo: the same writes give the
// same gauge updates as a client-go indexer built with WithStoreMetrics,
// including its edge cases (no version, tombstones, versions that are not
// numbers or are longer than 15 digits).
func TestStoreResourceVersionMetricMatchesClientGo(t *testing.T) {
	ours, ref := &rvMetrics{}, &rvMetrics{}
	ix := NewWithMetrics(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers(), reservedID(t, "indexer-rv-ours"), ours)
	cg := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers(),
		cache.WithStoreMetrics(reservedID(t, "indexer-rv-client-go"), ref)).(rvStore)
	a := newObj("ns", "a", "3")
	do := []struct {
		name string
		fn   func(s rvStore) error
	}{
		{"Add", func(s rvStore) error { return s.Add(a) }},
		{"Update", func(s rvStore) error { return s.Update(newObj("ns", "a", "5")) }},
		{"tombstone Delete", func(s rvStore) error { return s.Delete(cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: a}) }},
		{"Delete", func(s rvStore) error { return s.Delete(newObj("ns", "a", "6")) }},
		{"Add without a version", func(s rvStore) error { return s.Add(newObj("ns", "b", "")) }},
		{"Add with a version that is no number", func(s rvStore) error { return s.Add(newObj("ns", "b", "abc")) }},
		{"Bookmark", func(s rvStore) error { s.Bookmark("9"); return nil }},
		{"Bookmark past 15 digits", func(s rvStore) error { s.Bookmark("12345678901234567890"); return nil }},
		{"Replace", func(s rvStore) error { return s.Replace([]any{newObj("ns", "c", "2")}, "12") }},
		{"Replace without a version", func(s rvStore) error { return s.Replace(nil, "") }},
		{"Transaction", func(s rvStore) error {
			if err := s.Transaction(
				cache.Transaction{Type: cache.TransactionTypeAdd, Object: newObj("ns", "d", "20")},
				cache.Transaction{Type: cache.TransactionTypeUpdate, Object: newObj("ns", "d", "21")},
			); err != nil {
				return err
			}
			return nil
		}},
	}
	for _, st := range do {
		if err := st.fn(ix); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := st.fn(cg); err != nil {
			t.Fatalf("%s on client-go: %v", st.name, err)
		}
		if ours.String() != ref.String() {
			t.Fatalf("after %s: our gauge updates %s, client-go's %s", st.name, ours, ref)
		}
	}
	if want := "[3 5 6 0 9 6.7890123456789e+14 12 0 21]"; ours.String() != want {
		t.Fatalf("gauge updates %s, want %s", ours, want)
	}
}

// TestStoreResourceVersionMetricNeedsReservedIdentity: without a reserved
// identity or without a provider nothing is asked or published.
func TestStoreResourceVersionMetricNeedsReservedIdentity(t *testing.T) {
	m := &rvMetrics{}
	for _, ix := range []*Indexer{
		NewWithMetrics(cache.DeletionHandlingMetaNamespaceKeyFunc, nil, cache.InformerNameAndResource{}, m),
		NewWithMetrics(cache.DeletionHandlingMetaNamespaceKeyFunc, nil, reservedID(t, "indexer-rv-no-provider"), nil),
		New(cache.DeletionHandlingMetaNamespaceKeyFunc, nil),
	} {
		if err := ix.Add(newObj("ns", "a", "3")); err != nil {
			t.Fatal(err)
		}
		ix.Bookmark("4")
	}
	if m.String() != "[]" {
		t.Fatalf("published %s", m)
	}
}
