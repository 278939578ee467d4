package cluster

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// maxSnapshots bounds the list snapshots kept per resource for continue
// tokens; others are rebuilt from history while it still covers them.
const maxSnapshots = 4

type entry struct {
	key string
	obj runtime.Object
}

// listSnapshot is the state of one resource at one resourceVersion, sorted
// by key. Immutable once built, so pages read it without the lock.
type listSnapshot struct {
	rv    uint64
	items []entry
}

// snapshotCache keeps the most recently used snapshots, newest last.
// Guarded by Cluster.mu.
type snapshotCache struct{ snaps []*listSnapshot }

func (c *snapshotCache) get(rv uint64) *listSnapshot {
	for i, s := range c.snaps {
		if s.rv == rv {
			c.snaps = append(append(c.snaps[:i:i], c.snaps[i+1:]...), s)
			return s
		}
	}
	return nil
}

func (c *snapshotCache) put(s *listSnapshot) {
	if c.get(s.rv) != nil {
		return
	}
	if len(c.snaps) == maxSnapshots {
		c.snaps = append(c.snaps[:0], c.snaps[1:]...)
	}
	c.snaps = append(c.snaps, s)
}

func (c *snapshotCache) clear() { c.snaps = nil }

// snapshot returns the state of st at rv, or with latest at the newest
// resourceVersion (which must not be older than rv). A resourceVersion the
// server has not reached is a 504 "too large"; one history no longer reaches
// back to is a 410. It copies what it needs under the lock and sorts outside.
func (c *Cluster) snapshot(st *store, rv uint64, latest bool) (*listSnapshot, error) {
	c.mu.Lock()
	if rv > c.rv {
		current := c.rv
		c.mu.Unlock()
		return nil, errTooLarge(rv, current)
	}
	if latest {
		rv = c.rv
	}
	// Compaction is checked before the cache: a version storage has
	// compacted is gone even if a snapshot of it is still cached.
	if rv < st.hist.compacted {
		compacted := st.hist.compacted
		c.mu.Unlock()
		return nil, errTooOld(rv, compacted)
	}
	if s := st.snaps.get(rv); s != nil {
		c.mu.Unlock()
		return s, nil
	}
	cur := make([]entry, 0, len(st.objects))
	for k, o := range st.objects {
		cur = append(cur, entry{k, o})
	}
	later := st.hist.since(rv)
	c.mu.Unlock()

	items := rewind(cur, later)
	slices.SortFunc(items, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	s := &listSnapshot{rv: rv, items: items}

	c.mu.Lock()
	if rv >= st.hist.compacted {
		st.snaps.put(s)
	}
	c.mu.Unlock()
	return s, nil
}

// rewind turns the current entries back into the state before the events in
// later (all newer than the target resourceVersion, oldest first): for each
// key the oldest later event tells what the key held at the target.
func rewind(cur []entry, later []event) []entry {
	if len(later) == 0 {
		return cur
	}
	then := make(map[string]runtime.Object, len(later))
	for _, e := range later {
		if _, seen := then[e.key]; !seen {
			then[e.key] = e.prev // nil: created later, so absent then
		}
	}
	out := cur[:0]
	for _, e := range cur {
		if _, changed := then[e.key]; !changed {
			out = append(out, e)
		}
	}
	for k, o := range then {
		if o != nil {
			out = append(out, entry{k, o})
		}
	}
	return out
}

// namespaceRange returns the half-open index range of items in ns ("" = all).
// Keys are "ns/name" and '0' follows '/', so a namespace is one sorted run.
func namespaceRange(items []entry, ns string) (int, int) {
	if ns == "" {
		return 0, len(items)
	}
	lo, _ := slices.BinarySearchFunc(items, ns+"/", func(e entry, t string) int { return strings.Compare(e.key, t) })
	hi, _ := slices.BinarySearchFunc(items, ns+"0", func(e entry, t string) int { return strings.Compare(e.key, t) })
	return lo, hi
}
