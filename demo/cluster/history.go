package cluster

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// event is one committed change of a resource. obj and prev are stored,
// immutable objects: obj is the new state (for DELETED, the last state
// stamped with the deletion's resourceVersion), prev the state before (nil
// for ADDED). prev lets watches with selectors turn updates into ADDED or
// DELETED, and lets a LIST at an exact resourceVersion undo later changes.
type event struct {
	typ  watch.EventType
	rv   uint64
	key  string
	obj  runtime.Object
	prev runtime.Object
}

// history is a ring of the newest events of one resource, oldest first, in
// resourceVersion order.
//
// Invariant: every event of the resource with rv > compacted is held, so a
// watch or exact read from any resourceVersion >= compacted can be served.
// Guarded by Cluster.mu.
type history struct {
	buf       []event
	start     int // index of the oldest held event
	n         int
	compacted uint64
}

func newHistory(size int) history { return history{buf: make([]event, size)} }

// add appends e, evicting (and so compacting past) the oldest when full.
func (h *history) add(e event) {
	if len(h.buf) == 0 {
		h.compacted = e.rv
		return
	}
	if h.n < len(h.buf) {
		h.buf[(h.start+h.n)%len(h.buf)] = e
		h.n++
		return
	}
	h.compacted = h.buf[h.start].rv
	h.buf[h.start] = e
	h.start = (h.start + 1) % len(h.buf)
}

func (h *history) at(i int) *event { return &h.buf[(h.start+i)%len(h.buf)] }

// since returns the held events with rv > after, oldest first. The caller
// checks after >= compacted first; otherwise the result has a gap.
func (h *history) since(after uint64) []event {
	i := sort.Search(h.n, func(i int) bool { return h.at(i).rv > after })
	out := make([]event, 0, h.n-i)
	for ; i < h.n; i++ {
		out = append(out, *h.at(i))
	}
	return out
}

// newest is the newest held event's resourceVersion, or compacted when
// none is held.
func (h *history) newest() uint64 {
	if h.n == 0 {
		return h.compacted
	}
	return h.at(h.n - 1).rv
}

// compactTo forgets every event: only resourceVersions >= rv stay servable.
func (h *history) compactTo(rv uint64) {
	clear(h.buf)
	h.start, h.n = 0, 0
	h.compacted = rv
}
