package indexer

// Versions returns every stored key with its object's resourceVersion
// ("" for an object without metadata), for comparing the store with a
// server's list.
func (i *Indexer) Versions() map[string]string { return VersionsOf(i.Objects()) }

// KeyedObject is one stored object and its key.
type KeyedObject struct {
	Key    string
	Object any
}

// Objects copies every stored key and object, holding the read lock only
// for the copy: stored objects are replaced, never changed in place, so a
// caller reads them after it without the lock.
func (i *Indexer) Objects() []KeyedObject {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]KeyedObject, 0, len(i.items))
	for key, obj := range i.items {
		out = append(out, KeyedObject{Key: key, Object: obj})
	}
	return out
}

// VersionsOf maps each key to its object's resourceVersion.
func VersionsOf(objs []KeyedObject) map[string]string {
	out := make(map[string]string, len(objs))
	for _, o := range objs {
		out[o.Key], _ = resourceVersionOf(o.Object)
	}
	return out
}
