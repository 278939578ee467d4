// Package cluster is informtop's embedded demo cluster: an in-process
// simulated Kubernetes API server for a few built-in kinds (Pods,
// ConfigMaps, Deployments, Secrets), a deterministic workload generator and
// fault injection. It is consumed through ListerWatcher values that client-go's
// real cache.Reflector drives, so every list, page, watch, bookmark, 410 and
// retry the dashboard shows is the reflector's genuine behaviour.
//
// # Server model
//
// One resourceVersion counter is shared by all kinds, like an etcd revision.
// Stored objects are immutable: a write replaces the pointer, and everything
// handed out (list items, watch events, Snapshot) is a deep copy, so callers
// can never corrupt the server's truth.
//
// LIST behaves like an API server whose lists are served from storage with
// paging honoured (as with the watch cache disabled), because that is what
// makes pages visible in the demo:
//   - resourceVersion "" (consistent read) and "0" (any) return the current state;
//   - "N" with resourceVersionMatch NotOlderThan, or unset without a limit,
//     return the current state (N newer than the server: 504 "Too large
//     resource version");
//   - "N" with resourceVersionMatch Exact, or unset with a limit (the legacy
//     exact semantics of paginated lists), return the state at exactly N,
//     rebuilt from the event history; 410 Expired once N is compacted away;
//   - continue tokens carry the list's resourceVersion, so every page of one
//     list reports the same resourceVersion and reads the same snapshot; a
//     token older than the compaction point answers 410 Expired, which makes
//     client-go's pager fall back to a full list.
//
// WATCH behaves like the API server's watch cache: a bounded per-resource
// event history (Options.HistorySize) serves watches from resourceVersion N
// with exactly the events after N; an N older than the history is answered,
// as the API server does, by a stream holding one ERROR event with a 410
// Expired status (one newer than the server, with a 504 "Too large resource
// version" status). resourceVersion "" or "0" without sendInitialEvents start
// with synthetic ADDED events for the current state. Bookmarks are sent every
// Options.BookmarkInterval when allowWatchBookmarks is set. A stream ends after
// min(timeoutSeconds, Options.WatchTimeout).
//
// Streaming lists (sendInitialEvents, client-go's WatchListClient feature) are
// served only when Options.WatchList is true: ADDED events for the current
// state, then a BOOKMARK annotated with metav1.InitialEventsAnnotationKey.
// When false, the server answers such a watch with 422 Invalid, as an API
// server without the WatchList feature does, and ListerWatcher reports
// IsWatchListSemanticsUnSupported, so a reflector built directly on it never
// tries to stream and goes straight to LIST.
//
// # Slow watchers
//
// Writers never block on a watcher: each stream has a bounded buffer
// (Options.WatchBuffer). When it is full the server closes that stream, as
// the API server terminates unresponsive watchers; the client re-watches from
// the last resourceVersion it saw and loses nothing.
//
// # Faults
//
// DropWatches closes every stream; ExpireHistory compacts the history so every
// resourceVersion handed out so far is gone (forcing 410 and a relist);
// SetAvailable(false) makes LIST and WATCH fail with "connection refused"
// (writes from the workload keep going, as if only the informer's connection
// were cut).
//
// # Locking
//
// One mutex (Cluster.mu) guards all server state. Writers hold it while they
// hand events to watcher buffers with non-blocking sends; stream goroutines
// take it only to enqueue bookmarks and to deregister, and never while
// sending to a client. The Cluster owns no background goroutines: each watch
// stream runs one goroutine that ends when the client stops the watch, its
// context ends, its timeout fires or the server closes it.
package cluster
