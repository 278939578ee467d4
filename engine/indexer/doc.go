// Package indexer is informtop's thread-safe indexed store: client-go
// v0.37's cache.Indexer re-implemented, with counters and sorted reads for
// the UI.
//
// One RWMutex guards the objects, the index functions, the inverted indexes
// and the last seen resourceVersion; writers hold it for the whole change
// and bump a generation number, so a reader can tell cheaply whether
// anything changed since it last looked. Index sets that empty are removed,
// so churn does not leak memory. Stored objects are shared with callers and
// must be treated as read-only.
package indexer
