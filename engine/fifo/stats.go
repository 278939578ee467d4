package fifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

// countDelta adds delta d. RealFIFO's whole-store items count under the type
// they stand for: a ReplacedAll as one Replaced per listed object, as the
// same list queued without AtomicEvents (or into a DeltaFIFO) counts, so a
// streamed list of 300 objects reads 300 and not 1; a SyncAll, whose
// objects are only known when it is processed, as one Sync.
func countDelta(c *TypeCounts, d cache.Delta) {
	switch d.Type {
	case cache.Added:
		c.Added++
	case cache.Updated:
		c.Updated++
	case cache.Deleted:
		c.Deleted++
	case cache.Replaced:
		c.Replaced++
	case cache.ReplacedAll:
		if info, ok := d.Object.(cache.ReplacedAllInfo); ok {
			c.Replaced += uint64(len(info.Objects))
		}
	case cache.Sync, cache.SyncAll:
		c.Sync++
	case cache.Bookmark:
		c.Bookmark++
	}
}

// Instrumented is what the engine reads from either queue.
type Instrumented interface {
	cache.Queue
	// Stats returns the counters and the first head rows of the queue.
	Stats(head int) Stats
	// Rows copies at most max rows from offset on, in pop order, and
	// reports how many rows are queued: paging through the whole queue.
	Rows(offset, max int) (rows []Item, total int)
	// Deltas returns a copy of the deltas queued for key (all rows with
	// that key for RealFIFO, in order), or nil if none are queued.
	Deltas(key string) cache.Deltas
	// Cut gives fn the queued deltas while nothing changes the queue or
	// the consumer's store (see DeltaFIFO.Cut).
	Cut(fn func(queued cache.Deltas))
	// SetHoldAfterWait makes a pop that had to wait for an item ask hold
	// (with the queue locked: it must be quick and not call the queue)
	// before taking it; when hold says so the pop returns ErrHeld and the
	// item stays queued. A pause made while the pop loop waited in an
	// empty queue then holds the next item, at no cost to a pop that
	// found items. Set it before the first pop.
	SetHoldAfterWait(hold func() bool)
	// PopWaiting reports whether a pop is blocked waiting for an item.
	PopWaiting() bool
}

type (
	// Item is one row of a queue's bounded head view. For DeltaFIFO a row
	// is a key with all its coalesced deltas; for RealFIFO one event.
	Item = pipeline.QueueItem
	// TypeCounts counts deltas by type.
	TypeCounts = pipeline.DeltaCounts
	// Stats is a cheap, consistent copy of a queue's instrumentation,
	// taken under the queue's lock. Head holds at most the number of rows
	// asked for, so its cost depends on those rows (and, for DeltaFIFO, on
	// the deltas they hold), never on how many rows are queued behind them.
	Stats = pipeline.Queue
)
