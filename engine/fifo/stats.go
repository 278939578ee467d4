package fifo

import (
	"time"

	"k8s.io/client-go/tools/cache"
)

// Item is one row of a queue's bounded head view. For DeltaFIFO a row is a
// key with all its coalesced deltas; for RealFIFO a row is one event.
type Item struct {
	Key      string            `json:"key"`
	Types    []cache.DeltaType `json:"types"`
	Enqueued time.Time         `json:"enqueued"` // when the row entered the queue
}

// TypeCounts counts deltas by type.
type TypeCounts struct {
	Added    uint64 `json:"added"`
	Updated  uint64 `json:"updated"`
	Deleted  uint64 `json:"deleted"`
	Replaced uint64 `json:"replaced"`
	Sync     uint64 `json:"sync"`
	Bookmark uint64 `json:"bookmark"`
}

// Total is the sum over all types.
func (c TypeCounts) Total() uint64 {
	return c.Added + c.Updated + c.Deleted + c.Replaced + c.Sync + c.Bookmark
}

// count adds delta d. RealFIFO's whole-store items count under the type
// they stand for: a ReplacedAll as one Replaced per listed object, as the
// same list queued without AtomicEvents (or into a DeltaFIFO) counts, so a
// streamed list of 300 objects reads 300 and not 1; a SyncAll, whose
// objects are only known when it is processed, as one Sync.
func (c *TypeCounts) count(d cache.Delta) {
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

// Stats is a cheap, consistent copy of a queue's instrumentation, taken
// under the queue's lock. Head holds at most the number of rows asked for,
// so its cost depends on those rows (and, for DeltaFIFO, on the deltas they
// hold), never on how many rows are queued behind them.
type Stats struct {
	Kind           Kind       `json:"kind"`
	Depth          int        `json:"depth"`  // rows: keys (DeltaFIFO) or events (RealFIFO)
	Deltas         int        `json:"deltas"` // deltas held over all rows
	OldestEnqueued time.Time  `json:"oldestEnqueued"`
	Added          TypeCounts `json:"added"`  // deltas ever queued, by type
	Popped         TypeCounts `json:"popped"` // deltas ever popped, by type
	Pops           uint64     `json:"pops"`   // Pop/PopBatch items handed to the process function
	Coalesced      uint64     `json:"coalesced"`
	Synced         bool       `json:"synced"`
	Closed         bool       `json:"closed"`
	Head           []Item     `json:"head,omitempty"`
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
