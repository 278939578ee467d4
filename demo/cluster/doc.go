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
// window of events (Options.HistorySize) serves watches from resourceVersion N
// with exactly the events after N; an N older than the window is answered,
// as the API server does, by a stream holding one ERROR event with a 410
// Expired status (one newer than the server, with a 504 "Too large resource
// version" status). resourceVersion "" or "0" without sendInitialEvents start
// with synthetic ADDED events for the current state. When allowWatchBookmarks is
// set, bookmarks follow kube-apiserver v1.37's schedule: one every
// Options.BookmarkFrequency (a minute unless a scenario speeds it up) and a
// last one 2s before the stream's timeout. A stream ends after
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
// # The watch path
//
// An event reaches a watcher through the stages of kube-apiserver v1.37's
// watch path, each with its own goroutine and bounded buffers, so that a
// slow stage backs up the ones before it:
//
//  1. etcd: a write commits at the next revision and waits on etcd's side
//     (PathStats.EtcdPending) until the storage watcher takes it.
//  2. The storage watcher (etcd3's watchChan): its incoming channel, the
//     decode step, its result channel, each Options.StorageBuffer (100)
//     long; v1.37 keeps no high-water mark on them, and neither does this.
//  3. The watch cache (the cacher): appends the event to its window of
//     Options.HistorySize events and queues it on the cacher's incoming
//     channel (100 long, with the path's one high-water mark, as v1.37's
//     cacher keeps), from which its dispatch hands it to every watcher
//     whose selector it passes.
//  4. One buffer per watcher (Options.WatchBuffer). When a watcher's buffer
//     is full the dispatch waits for it, holding up every other watcher of
//     the resource, for at most Options.DispatchBudget; a watcher that has
//     not made room by then is terminated. Its client re-watches from the
//     last resourceVersion it saw and loses nothing, or gets 410 Expired if
//     the window has moved past it.
//  5. The stream goroutine writes the buffer to the client; SetClientDelay
//     makes a client slow to read.
//
// What the demo simplifies, compared with kube-apiserver:
//   - One process, no network: "etcd" is the store's map plus a history of
//     events, and its watch is a slice the storage watcher drains, not a
//     gRPC stream; etcd itself never falls behind or cancels a watch.
//   - The storage watcher only counts its decode: the stored object is
//     already a Go object. It has no transform step (etcd3's watchChan
//     runs each value through the storage transformer, which decrypts
//     data encrypted at rest, before decoding it) and no filter step (it
//     applies a watch's selector there only for watches served from etcd
//     itself; the cacher's own watch takes everything, as here).
//   - The cacher's own reflector and its store are one stage: one
//     goroutine takes the storage watcher's events into the window.
//   - The walk-throughs learners know show an etcd2-era watcher (incoming
//     channel, translate, outgoing channel, high-water marks on both);
//     etcd3's watcher has the same two channels and no marks.
//   - The dispatch looks at every watcher of the resource and applies each
//     one's selector; kube-apiserver's cacher first narrows the watchers by
//     the resource's indexed trigger when it has one (pods: spec.nodeName).
//   - A watcher has one buffer of Options.WatchBuffer events, 1024 unless
//     set (the slow-watcher scenario sets 20). kube-apiserver gives each
//     watcher two channels (input and result) sized by a heuristic
//     (watch_cache_history.go, suggestedWatchChannelSize): the window's
//     capacity over its event-fresh duration (75 s), at least 10 and at
//     most 10 for a watch whose selector uses the indexed trigger, 1000
//     for another watch of a resource that has one, 100 for a resource
//     without; with the window's starting capacity of 100 events, 10.
//   - The dispatch budget is fixed per event, not kube-apiserver's budget
//     that refills over time and is shared by all blocked watchers. The
//     slow-watcher scenario sets it to 1.5 s, not about 0.1 s: client-go
//     treats a watch that ends within a second without an event as failed
//     and relists, which would hide the re-watch the scenario shows.
//   - A terminated watcher's buffered events are dropped; kube-apiserver
//     delivers them first when they hold the bookmark that ends a
//     WatchList's initial events (a graceful close).
//   - Each watcher's events are deep-copied and handed over as Go values;
//     kube-apiserver encodes an event once per format for all watchers
//     (cachingObject) and writes it to each HTTP stream.
//   - A slow client is a fixed delay per event (SetClientDelay), not a
//     congested connection.
//   - Bookmarks are queued by each stream's own timer, on the cacheWatcher's
//     schedule (nextBookmark), at the newest revision up to which its
//     resource's events have all been dispatched; kube-apiserver's cacher
//     fires due watchers from one-second buckets, up to about a second
//     later. A watcher the dispatch is waiting on gets none, nor does one
//     that revision has not moved past since it opened.
//   - A client without bookmarks (ListerWatcher.SetBookmarks(false)) is a
//     teaching knob: client-go's reflector always asks for them, so the
//     demo's ListerWatcher strips allowWatchBookmarks from the request
//     before the server sees it, and reports the WatchList semantics as
//     unsupported so that the reflector LISTs.
//   - The watch cache's window counts events, never time, and never
//     resizes itself; etcd's history for exact-resourceVersion lists has
//     the same length. There is no progress-notify: the cache's
//     resourceVersion for a resource is the store's while nothing of that
//     resource is on its way.
//   - LISTs never come from the watch cache (see above). The initial
//     events of a WatchList stream or of a watch from "" or "0" come from
//     the store at the current revision; kube-apiserver takes them from
//     the watch cache, at the cache's own resourceVersion for "0" (and
//     from etcd for "" when the WatchList feature is off).
//   - Each resource has one path; kube-apiserver also has one cacher per
//     resource, but shares etcd's watch across resources.
//   - The path's goroutines run only while the resource has watchers or
//     events on their way; without watchers a write goes straight into the
//     window. It still counts as dispatched (PathStats.Dispatched), as
//     kube-apiserver's cacher counts an event dispatched to no watcher.
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
// One mutex (Cluster.mu) guards all server state. Writers hold it only to
// commit and hand the event to etcd's side of the path; no goroutine holds
// it while it waits on a buffer: the dispatch waits for a full watcher with
// the mutex released. Stream goroutines take it only to enqueue bookmarks
// and to deregister, never while sending to a client. Each watch stream
// runs one goroutine that ends when the client stops the watch, its context
// ends, its timeout fires or the server closes it; each resource's path runs
// three goroutines while it has watchers or events on their way, and stops
// once it has neither.
package cluster
