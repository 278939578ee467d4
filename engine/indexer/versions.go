package indexer

// Versions returns every stored key with its object's resourceVersion
// ("" for an object without metadata), for comparing the store with a
// server's list.
func (i *Indexer) Versions() map[string]string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make(map[string]string, len(i.items))
	for key, obj := range i.items {
		out[key], _ = resourceVersionOf(obj)
	}
	return out
}
