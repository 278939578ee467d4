package indexer

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	clientfeatures "k8s.io/client-go/features"
)

// resourceVersionOf returns obj's resourceVersion and whether obj has object
// metadata at all. Objects without metadata (e.g. a DeletedFinalStateUnknown)
// leave the store's last seen resourceVersion alone; an object whose version
// is empty sets it to "", as in client-go.
func resourceVersionOf(obj any) (string, bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return m.GetResourceVersion(), true
}

// LastStoreSyncResourceVersion returns the resourceVersion of the newest
// write, Replace or Bookmark the store has seen. Like client-go it reports ""
// while the AtomicFIFO feature gate is off, since without atomic events the
// store's version does not describe a consistent state.
func (i *Indexer) LastStoreSyncResourceVersion() string {
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.AtomicFIFO) {
		return ""
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.rv
}

// Bookmark records rv as the last seen resourceVersion without touching the
// objects.
func (i *Indexer) Bookmark(rv string) {
	i.mu.Lock()
	defer i.mu.Unlock() // deferred: the metrics provider's gauge is caller code
	i.setRVLocked(rv)
	i.gen.Add(1)
}

// setRVLocked records rv as the last seen resourceVersion and publishes it
// as client-go's store resource version gauge. The gauge gets rv's last 15
// digits as a number, so it stays exact in a float64, and "" as 0; a
// resourceVersion that is not a number leaves the gauge alone. Caller holds
// the write lock.
func (i *Indexer) setRVLocked(rv string) {
	i.rv = rv
	if !i.publishRV {
		return
	}
	if v, ok := rvMetricValue(rv); ok {
		i.rvGauge.Set(v)
	}
}

// rvMetricValue is the gauge value for rv; ok is false when rv is not a
// decimal number.
func rvMetricValue(rv string) (float64, bool) {
	if rv == "" {
		return 0, true
	}
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}

// noMetric stands in for the gauge when none is published.
type noMetric struct{}

func (noMetric) Set(float64) {}
