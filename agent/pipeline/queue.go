package pipeline

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/tools/cache"
)

// QueueKind names a queue implementation; it reads and writes as text
// ("RealFIFO", "DeltaFIFO"). The zero value is RealFIFO, client-go
// v0.37's default.
type QueueKind int

const (
	// RealFIFO keeps every delta in arrival order.
	RealFIFO QueueKind = iota
	// DeltaFIFO coalesces deltas per key.
	DeltaFIFO
)

// String is the kind's name.
func (k QueueKind) String() string {
	switch k {
	case RealFIFO:
		return "RealFIFO"
	case DeltaFIFO:
		return "DeltaFIFO"
	}
	return fmt.Sprintf("QueueKind(%d)", int(k))
}

// Valid reports whether k names a queue.
func (k QueueKind) Valid() bool { return k == RealFIFO || k == DeltaFIFO }

// MarshalText writes the kind's name.
func (k QueueKind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("no queue kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name in any case; "real" and "delta" are
// short forms.
func (k *QueueKind) UnmarshalText(text []byte) error {
	switch strings.ToLower(string(text)) {
	case "realfifo", "real":
		*k = RealFIFO
	case "deltafifo", "delta":
		*k = DeltaFIFO
	default:
		return fmt.Errorf("unknown queue %q: use RealFIFO or DeltaFIFO", text)
	}
	return nil
}

// Queue is the state of an informer's queue. Head holds only the rows
// asked for, so reading it costs those rows, never the queue's length.
type Queue struct {
	Kind QueueKind `json:"kind"`
	// Depth counts rows: keys (DeltaFIFO) or events (RealFIFO).
	Depth int `json:"depth"`
	// Deltas counts the deltas held over all rows.
	Deltas         int         `json:"deltas"`
	OldestEnqueued time.Time   `json:"oldestEnqueued"`
	Added          DeltaCounts `json:"added"`  // deltas ever queued, by type
	Popped         DeltaCounts `json:"popped"` // deltas ever popped, by type
	// Pops counts the items handed to the pop loop's process function.
	Pops      uint64 `json:"pops"`
	Coalesced uint64 `json:"coalesced"`
	Synced    bool   `json:"synced"`
	Closed    bool   `json:"closed"`
	// Head is the first rows, in pop order.
	Head []QueueItem `json:"head,omitempty"`
}

// QueueItem is one row of a queue: for DeltaFIFO a key with its coalesced
// deltas, for RealFIFO one event.
type QueueItem struct {
	Key      string            `json:"key"`
	Types    []cache.DeltaType `json:"types"`
	Enqueued time.Time         `json:"enqueued"`
}

// DeltaCounts counts deltas by type.
type DeltaCounts struct {
	Added    uint64 `json:"added"`
	Updated  uint64 `json:"updated"`
	Deleted  uint64 `json:"deleted"`
	Replaced uint64 `json:"replaced"`
	Sync     uint64 `json:"sync"`
	Bookmark uint64 `json:"bookmark"`
}

// Total is every delta counted.
func (c DeltaCounts) Total() uint64 {
	return c.Added + c.Updated + c.Deleted + c.Replaced + c.Sync + c.Bookmark
}

// Cache is the state of an informer's cache (its indexer).
type Cache struct {
	Objects int `json:"objects"`
	// Indexes maps an index name to its number of distinct values.
	Indexes             map[string]int `json:"indexes"`
	LastResourceVersion string         `json:"lastResourceVersion"`
	Adds                uint64         `json:"adds"`
	Updates             uint64         `json:"updates"`
	Deletes             uint64         `json:"deletes"`
	Replaces            uint64         `json:"replaces"`
	// Generation changes with every change, so readers can skip unchanged
	// key lists.
	Generation uint64 `json:"generation"`
}
