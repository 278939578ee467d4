package cluster

import (
	"cmp"
	"slices"
	"time"
)

// PathStats is one resource's watch path inside the simulated server, stage
// by stage, as an event travels it.
type PathStats struct {
	EtcdRevision uint64 // newest resourceVersion of the whole store
	// ResourceVersion is how far the watch cache is up to date for this
	// resource: every event up to it has reached the cache.
	ResourceVersion uint64
	EtcdPending     int // events committed that the storage watcher has not taken in
	// Incoming and Outgoing are the etcd3 watcher's incomingEventChan and
	// resultChan, which keep no high-water mark in v1.37; CacherIncoming
	// is the cacher's incoming channel, between the watch cache and the
	// dispatch, with the path's one high-water mark.
	Incoming       BufferStats
	Outgoing       BufferStats
	CacherIncoming BufferStats
	Decoded        uint64 // events through the storage watcher
	Cache          CacheStats
	Received       uint64 // events the watch cache appended
	// Dispatched counts the events the watch cache has finished
	// dispatching, each once however many watchers it went to (none,
	// too), as kube-apiserver's apiserver_watch_cache_events_dispatched_total
	// does; what each watcher got is its WatcherStats.Sent.
	Dispatched uint64
	Bookmarks  uint64 // bookmarks queued to watchers
	// BookmarkFrequency is how often a watch gets a bookmark
	// (Options.BookmarkFrequency); 0 when periodic bookmarks are off.
	BookmarkFrequency time.Duration
	Sent              uint64 // events and bookmarks written to clients, all watchers together
	Terminated        uint64 // watchers closed for not making room in time
	// Lists counts the resource's LIST requests (continuations not
	// again); every one is read from storage (see the package doc).
	// WatchLists counts the lists streamed instead (sendInitialEvents).
	Lists, WatchLists uint64
	// DispatchMean is the mean time from a commit to the event being in
	// every watcher's buffer, over the events that went through the path.
	DispatchMean time.Duration
	Watchers     []WatcherStats
	// ErrorStreams are open streams that carry only an ERROR event (410
	// Gone, say): answered without a watcher, so not among Watchers.
	ErrorStreams int
}

// BufferStats is a bounded buffer's fill now and its high-water mark.
type BufferStats struct{ Len, Cap, HighWater int }

// CacheStats is the watch cache's window: Len of Capacity events held; a
// watch may start from OldestRV on, NewestRV is the newest event held.
type CacheStats struct {
	Len, Capacity      int
	OldestRV, NewestRV uint64
}

// WatcherStats is one open watch as the server sees it.
type WatcherStats struct {
	ID        int
	Client    string // as set with ListerWatcher.SetClient
	Buffer    BufferStats
	Sent      uint64
	Bookmarks bool
	Blocked   bool // the watch cache is waiting for room in its buffer
}

// WatchPath reports the resource's watch path; ok is false for an unknown
// resource.
func (c *Cluster) WatchPath(resource string) (PathStats, bool) {
	st, err := c.store(resource)
	if err != nil {
		return PathStats{}, false
	}
	p := &st.path
	c.mu.Lock()
	defer c.mu.Unlock()
	s := PathStats{
		EtcdRevision:   c.rv,
		EtcdPending:    len(p.pending),
		Incoming:       BufferStats{Cap: c.opts.StorageBuffer},
		Outgoing:       BufferStats{Cap: c.opts.StorageBuffer},
		CacherIncoming: BufferStats{Cap: cacherIncomingSize, HighWater: int(p.cacherHigh.Load())},
		Decoded:        p.decoded.Load(),
		Cache: CacheStats{
			Len: p.cache.n, Capacity: len(p.cache.buf),
			OldestRV: p.cache.compacted, NewestRV: p.cache.newest(),
		},
		Received:          p.received.Load(),
		Dispatched:        p.dispatched.Load(),
		Bookmarks:         p.bookmarks.Load(),
		BookmarkFrequency: max(c.opts.BookmarkFrequency, 0),
		Sent:              p.sent.Load(),
		Terminated:        p.terminated.Load(),
		ErrorStreams:      int(p.errorStreams.Load()),
		Lists:             p.lists.Load(),
		WatchLists:        p.watchLists.Load(),
	}
	if n := p.dispatchCount.Load(); n > 0 {
		s.DispatchMean = time.Duration(p.dispatchNanos.Load() / n)
	}
	s.ResourceVersion = c.rv
	if p.inflight > 0 {
		s.ResourceVersion = p.cache.newest()
	}
	if r := p.run; r != nil {
		s.Incoming.Len, s.Outgoing.Len, s.CacherIncoming.Len = len(r.incoming), len(r.outgoing), len(r.cacherIn)
	}
	for w := range st.watchers {
		s.Watchers = append(s.Watchers, WatcherStats{
			ID: w.id, Client: w.client,
			Buffer:    BufferStats{Len: len(w.in), Cap: cap(w.in), HighWater: int(w.high.Load())},
			Sent:      w.sent.Load(),
			Bookmarks: w.bookmarks,
			Blocked:   w.blocked,
		})
	}
	slices.SortFunc(s.Watchers, func(a, b WatcherStats) int { return cmp.Compare(a.ID, b.ID) })
	return s, true
}

// SetClientDelay makes every client watching the resource slow: each event
// takes d to be read, as over a slow link. 0 restores full speed.
func (c *Cluster) SetClientDelay(resource string, d time.Duration) error {
	st, err := c.store(resource)
	if err != nil {
		return err
	}
	st.path.clientDelay.Store(int64(d))
	return nil
}
