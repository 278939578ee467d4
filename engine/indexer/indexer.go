package indexer

import (
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
)

// Indexer is a thread-safe map from key to object plus one inverted index per
// index function, with the behaviour of client-go v0.37's cache.NewIndexer.
//
// Invariants:
//   - for every index name in indexers, indices[name][value] holds exactly the
//     keys whose stored object the index function files under value;
//   - no empty value set is ever left in indices (sets are dropped when their
//     last key leaves, so high-churn values do not leak memory);
//   - gen is bumped, under the write lock, by every write operation, so a
//     reader that saw generation g under the read lock saw the state of g.
//
// Locking: mu guards items, indexers, indices and rv. Writers hold mu for the
// whole mutation; readers take mu.RLock. Key and resourceVersion extraction
// run before the lock is taken, as in client-go, to keep the critical section
// short. The counters are atomics so Stats and Generation need no write lock.
type Indexer struct {
	keyFunc cache.KeyFunc

	mu       sync.RWMutex
	items    map[string]any
	indexers cache.Indexers
	indices  map[string]valueIndex
	rv       string

	gen      atomic.Uint64
	adds     atomic.Uint64
	updates  atomic.Uint64
	deletes  atomic.Uint64
	replaces atomic.Uint64

	// rvGauge is client-go's store resource version metric; it is set
	// under mu, wherever rv is, so its updates follow rv's order.
	rvGauge   cache.GaugeMetric
	publishRV bool // rvGauge is a real metric: only then is rv parsed
}

// The informer relies on both: Indexer for the cache, TransactionStore for
// batched pops from the RealFIFO.
var (
	_ cache.Indexer          = (*Indexer)(nil)
	_ cache.TransactionStore = (*Indexer)(nil)
)

// New returns an empty Indexer keyed by keyFunc with the given index
// functions. The indexers map is copied, so later changes to the caller's map
// (or AddIndexers on this store) do not leak between the two.
func New(keyFunc cache.KeyFunc, indexers cache.Indexers) *Indexer {
	return NewWithMetrics(keyFunc, indexers, cache.InformerNameAndResource{}, nil)
}

// NewWithMetrics is New feeding client-go's store resource version metric
// through p, as a client-go store built with cache.WithStoreMetrics does:
// only when id is reserved now, and (unlike client-go, which would fall back
// to the provider registered with cache.SetInformerMetricsProvider, a value
// that cannot be read from outside client-go) only when p is not nil. The
// gauge is set whenever the store's last seen resourceVersion is: see
// setRVLocked.
func NewWithMetrics(keyFunc cache.KeyFunc, indexers cache.Indexers, id cache.InformerNameAndResource, p cache.InformerMetricsProvider) *Indexer {
	own := make(cache.Indexers, len(indexers))
	for name, fn := range indexers {
		own[name] = fn
	}
	i := &Indexer{
		keyFunc:  keyFunc,
		items:    map[string]any{},
		indexers: own,
		indices:  map[string]valueIndex{},
		rvGauge:  noMetric{},
	}
	if p != nil && id.Reserved() {
		i.rvGauge, i.publishRV = p.NewStoreResourceVersionMetric(id), true
	}
	return i
}

// Generation returns a number that changes whenever the store may have
// changed. It is read without locking.
func (i *Indexer) Generation() uint64 { return i.gen.Load() }
