package cluster

import "sync/atomic"

// ServerStats counts what the simulated API server has answered since New.
type ServerStats struct {
	Lists            uint64 `json:"lists"`            // LIST requests without a continue token answered successfully
	ListPages        uint64 `json:"listPages"`        // successful LIST responses, first and continuation pages
	ListedItems      uint64 `json:"listedItems"`      // items returned by all LIST responses
	Watches          uint64 `json:"watches"`          // WATCH streams opened (including ones that only carry an error)
	WatchesOpen      int64  `json:"watchesOpen"`      // WATCH streams currently open
	WatchListStreams uint64 `json:"watchListStreams"` // WATCH streams that streamed initial events for sendInitialEvents=true
	EventsSent       uint64 `json:"eventsSent"`       // ADDED, MODIFIED, DELETED and ERROR events delivered
	BookmarksSent    uint64 `json:"bookmarksSent"`    // BOOKMARK events delivered
	Expired          uint64 `json:"expired"`          // 410 Expired answers, from LIST or in WATCH streams
	Refused          uint64 `json:"refused"`          // calls refused while unavailable
	Rejected         uint64 `json:"rejected"`         // requests answered 400/422/504 (bad selector or options, too large resourceVersion)
	WatchesDropped   uint64 `json:"watchesDropped"`   // streams closed by DropWatches, ExpireHistory or SetAvailable(false)
	WatchesSlow      uint64 `json:"watchesSlow"`      // streams closed because their client fell WatchBuffer events behind
	WatchesTimedOut  uint64 `json:"watchesTimedOut"`  // streams ended by their timeout
	Writes           uint64 `json:"writes"`           // creates, updates and deletes committed
	ResourceVersion  uint64 `json:"resourceVersion"`  // newest resourceVersion
}

// counters are the live, lock-free form of ServerStats.
type counters struct {
	lists, listPages, listedItems         atomic.Uint64
	watches, watchListStreams             atomic.Uint64
	watchesOpen                           atomic.Int64
	eventsSent, bookmarksSent             atomic.Uint64
	expired, refused, rejected            atomic.Uint64
	watchesDropped, watchesSlow, timedOut atomic.Uint64
	writes                                atomic.Uint64
}

// Stats returns the server's counters.
func (c *Cluster) Stats() ServerStats {
	s := &c.stats
	return ServerStats{
		Lists:            s.lists.Load(),
		ListPages:        s.listPages.Load(),
		ListedItems:      s.listedItems.Load(),
		Watches:          s.watches.Load(),
		WatchesOpen:      s.watchesOpen.Load(),
		WatchListStreams: s.watchListStreams.Load(),
		EventsSent:       s.eventsSent.Load(),
		BookmarksSent:    s.bookmarksSent.Load(),
		Expired:          s.expired.Load(),
		Refused:          s.refused.Load(),
		Rejected:         s.rejected.Load(),
		WatchesDropped:   s.watchesDropped.Load(),
		WatchesSlow:      s.watchesSlow.Load(),
		WatchesTimedOut:  s.timedOut.Load(),
		Writes:           s.writes.Load(),
		ResourceVersion:  c.ResourceVersion(),
	}
}

// countError classifies an error answer in the counters and returns it.
func (c *Cluster) countError(err error) error {
	switch {
	case err == nil:
	case isExpired(err):
		c.stats.expired.Add(1)
	default:
		c.stats.rejected.Add(1)
	}
	return err
}

// HistorySize is how many events per resource the server keeps for watch
// resumption: its watch cache's window.
func (c *Cluster) HistorySize() int { return c.opts.HistorySize }
