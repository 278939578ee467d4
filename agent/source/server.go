package source

import (
	"context"
	"encoding/json"
	"time"
)

// ServerStats is what the API server says about the resource an informer
// watches: its watch cache beside the informer's own view. Sources that
// cannot read it leave Frame.Server empty; a source that may not read it
// sets Available false and Reason. In JSON, figures are present only when
// Available (see MarshalJSON).
type ServerStats struct {
	// Available is false when the source could not read the server's
	// figures; Reason then says why and what would show them.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// From names where the figures come from: the address asked and,
	// behind a load balancer, which API server answered.
	From string `json:"from,omitempty"`
	// ServerStarted is when the API server that answered started (its
	// process_start_time_seconds): behind a load balancer it tells the
	// API servers apart, and a change means another one answered, whose
	// counters are its own. APIServers counts the API servers of the
	// cluster (their identity leases) when the user may list them; 0 when
	// unknown.
	ServerStarted *time.Time `json:"serverStarted,omitempty"`
	APIServers    int        `json:"apiServers,omitempty"`
	// WatchCacheResourceVersion is the newest resourceVersion the watch
	// cache holds; WatchCacheCapacity how many events its window keeps.
	// A capacity of 0 means the server did not export it (a watch cache
	// always holds some events), so it is left out.
	WatchCacheResourceVersion string  `json:"watchCacheResourceVersion,omitempty"`
	WatchCacheCapacity        float64 `json:"watchCacheCapacity,omitempty"`
	// EventsReceived came into the watch cache from storage;
	// EventsDispatched went out of it to watchers; WatchEventsSent were
	// written to watch clients (all clients of this resource, not only
	// informtop).
	EventsReceived   uint64 `json:"eventsReceived"`
	EventsDispatched uint64 `json:"eventsDispatched"`
	WatchEventsSent  uint64 `json:"watchEventsSent"`
	// TerminatedWatchers counts watchers the server closed because they
	// could not keep up.
	TerminatedWatchers uint64 `json:"terminatedWatchers"`
	// DispatchLatencyMeanSeconds is the mean time from storage to a
	// watcher, over the server's life.
	DispatchLatencyMeanSeconds float64 `json:"dispatchLatencyMeanSeconds"`
	// ListsFromCache and ListsFromStorage count the LIST requests of the
	// resource the server answered from its watch cache and from etcd;
	// WatchLists the lists it streamed (sendInitialEvents).
	ListsFromCache   uint64 `json:"listsFromCache"`
	ListsFromStorage uint64 `json:"listsFromStorage"`
	WatchLists       uint64 `json:"watchLists"`
	// Taken is when the figures were read.
	Taken time.Time `json:"taken"`
	// Path is the server's watch path for this resource, stage by stage:
	// only a source that runs the server itself (the demo) knows it; nil
	// for a real cluster, whose API server exports no such figures.
	Path *WatchPath `json:"path,omitempty"`
}

// ServerReader is a source that reads the API server's figures in the
// background: --once waits for the first reading, so its report does not
// say "reading…" where one more moment gives the figures or why not.
//
// Reading costs the API server (a real one's /metrics is megabytes), so a
// reader reads only while someone looks: WantServer says the figures are
// on screen now, and WaitServerRead asks for one reading.
type ServerReader interface {
	// WaitServerRead returns when the first reading has ended, with
	// figures or a reason, or when ctx ends.
	WaitServerRead(ctx context.Context)
	// WantServer says the figures are shown now: the reader keeps reading
	// (at its own pace) while this is said at least every few seconds.
	WantServer()
}

// WatchPath is one resource's watch path inside the API server, in the
// order an event travels it: etcd → storage watcher → watch cache → one
// buffer per watcher → the stream to the client.
type WatchPath struct {
	// EtcdRevision is the store's newest revision (all resources).
	// EtcdPending are revisions of this resource etcd has committed that
	// the storage watcher has not taken in yet: they wait on etcd's side
	// while the storage watcher's incoming buffer is full.
	EtcdRevision uint64 `json:"etcdRevision"`
	EtcdPending  int    `json:"etcdPending"`
	// Incoming and Outgoing are the etcd3 storage watcher's two channels
	// in kube-apiserver v1.37 (incomingEventChan and resultChan): etcd's
	// events wait in Incoming to be decoded, decoded events wait in
	// Outgoing for the cacher. v1.37 keeps no high-water mark on them, so
	// their HighWater is 0. Decoded counts events through it.
	Incoming Buffer `json:"incoming"`
	Outgoing Buffer `json:"outgoing"`
	Decoded  uint64 `json:"decoded"`
	// CacherIncoming is the cacher's incoming channel: events the watch
	// cache has taken wait there for the dispatch to the watchers. Its
	// HighWater is the path's one high-water mark in v1.37.
	CacherIncoming Buffer `json:"cacherIncoming"`
	// Cache is the watch cache's window of recent events.
	Cache WatchCache `json:"cache"`
	// Watchers are the open watches of this resource, oldest first, each
	// with its own buffer.
	Watchers []WatcherBuffer `json:"watchers"`
	// ErrorStreams are open watch streams that carry only an ERROR event
	// (410 Gone, say): the cacher answers them without a watcher, so a
	// client's watch can be open while Watchers has none for it.
	ErrorStreams int `json:"errorStreams"`
	// BookmarksSent counts bookmarks the watch cache sent to watchers.
	BookmarksSent uint64 `json:"bookmarksSent"`
	// BookmarkEvery is how often this server sends a watch a bookmark;
	// RealBookmarks how often kube-apiserver does. They differ where the
	// demo speeds bookmarks up to teach, which the screen then says.
	// Zero when unknown or off.
	BookmarkEvery time.Duration `json:"bookmarkEvery,omitempty"`
	RealBookmarks time.Duration `json:"realBookmarks,omitempty"`
}

// Buffer is one bounded buffer's fill: Len of Cap now, and the most it
// has held (HighWater).
type Buffer struct {
	Len       int `json:"len"`
	Cap       int `json:"cap"`
	HighWater int `json:"highWater"`
}

// WatchCache is the watch cache's window: it holds Len of at most
// Capacity recent events. A watch can start from any resourceVersion from
// OldestRV on (an older one is answered 410 Expired); NewestRV is the
// newest event it has received.
type WatchCache struct {
	Len      int    `json:"len"`
	Capacity int    `json:"capacity"`
	OldestRV uint64 `json:"oldestRV"`
	NewestRV uint64 `json:"newestRV"`
}

// WatcherBuffer is one open watch as the server sees it.
type WatcherBuffer struct {
	// ID numbers watches in the order they opened, from 1.
	ID int `json:"id"`
	// Client says whose watch it is when the source knows, e.g. the
	// informer's name; "" otherwise.
	Client string `json:"client,omitempty"`
	// Buffer holds events dispatched to the watcher and not yet written
	// to its client.
	Buffer Buffer `json:"buffer"`
	// Sent counts events written to the client; Bookmarks is whether the
	// watch asked for bookmarks.
	Sent      uint64 `json:"sent"`
	Bookmarks bool   `json:"bookmarks"`
	// Blocked is true while the watch cache waits for room in this
	// watcher's full buffer; if none frees up in time, the watcher is
	// terminated.
	Blocked bool `json:"blocked"`
}

// MarshalJSON writes every figure of an available reading; an unavailable
// one is only "available": false, the reason and, when a server answered,
// which. Its figures are unknown, and zeros would read as measured.
func (s ServerStats) MarshalJSON() ([]byte, error) {
	if s.Available {
		type figures ServerStats // without this method, so no recursion
		return json.Marshal(figures(s))
	}
	return json.Marshal(struct {
		Available     bool       `json:"available"`
		Reason        string     `json:"reason,omitempty"`
		From          string     `json:"from,omitempty"`
		ServerStarted *time.Time `json:"serverStarted,omitempty"`
		APIServers    int        `json:"apiServers,omitempty"`
	}{Reason: s.Reason, From: s.From, ServerStarted: s.ServerStarted, APIServers: s.APIServers})
}
