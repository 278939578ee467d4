package indexer

import (
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
	i.rv = rv
	i.gen.Add(1)
	i.mu.Unlock()
}
