package indexer

// Sample returns up to n stored objects. Which ones is left to the map's
// iteration order, which Go starts at a random place each time, so
// repeated samples wander over the whole store. It holds the read lock
// only while copying n references: a cost that does not grow with the
// store, which is what lets memory accounting run at any size.
func (i *Indexer) Sample(n int) []any {
	if n <= 0 {
		return nil
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]any, 0, min(n, len(i.items)))
	for _, obj := range i.items {
		if len(out) == n {
			break
		}
		out = append(out, obj)
	}
	return out
}
