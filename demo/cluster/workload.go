package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// WorkloadOptions configure a Workload. Zero values take the defaults.
type WorkloadOptions struct {
	// Resources the workload changes; default every resource of the cluster.
	Resources []string
	// Seed fixes the sequence of changes: the same seed against the same
	// cluster state yields the same creates, updates and deletes.
	Seed int64
	// Relative weights of the three kinds of change; all zero means 1, 3, 1.
	CreateWeight, UpdateWeight, DeleteWeight int
	// MaxObjects caps each resource's population: a create drawn at the
	// cap becomes an update. 0 means no cap.
	MaxObjects int
}

// WorkloadStats counts the changes a Workload has applied.
type WorkloadStats struct {
	Creates uint64 `json:"creates"`
	Updates uint64 `json:"updates"`
	Deletes uint64 `json:"deletes"`
}

// Workload drives a Cluster with a seeded stream of realistic changes, on
// demand (Step) or in bursts on hot keys (Burst); pacing them over time is
// the caller's business.
//
// Locking: mu serializes every change the workload makes and guards its
// random source, so the sequence of changes depends only on the seed and the
// cluster's state, never on timing. mu is taken before Cluster.mu.
type Workload struct {
	c       *Cluster
	stores  []*store
	weights [3]int

	mu  sync.Mutex
	rng *rand.Rand

	creates, updates, deletes atomic.Uint64
	max                       int
}

const (
	opCreate = iota
	opUpdate
	opDelete
)

// NewWorkload returns a workload for c. It panics on a resource the
// cluster does not serve, which is a programming error.
func NewWorkload(c *Cluster, opts WorkloadOptions) *Workload {
	if len(opts.Resources) == 0 {
		opts.Resources = c.Resources()
	}
	w := &Workload{
		c:       c,
		weights: [3]int{opts.CreateWeight, opts.UpdateWeight, opts.DeleteWeight},
		rng:     rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed_0f_c4a9e)),
		max:     opts.MaxObjects,
	}
	if w.weights == [3]int{} {
		w.weights = [3]int{1, 3, 1}
	}
	for i, v := range w.weights {
		w.weights[i] = max(v, 0)
	}
	for _, r := range opts.Resources {
		st, err := c.store(r)
		if err != nil {
			panic(fmt.Sprintf("demo cluster: NewWorkload: %v", err))
		}
		w.stores = append(w.stores, st)
	}
	return w
}

// Stats returns how many changes of each kind were applied.
func (w *Workload) Stats() WorkloadStats {
	return WorkloadStats{Creates: w.creates.Load(), Updates: w.updates.Load(), Deletes: w.deletes.Load()}
}

// Step applies exactly n changes synchronously.
func (w *Workload) Step(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for range n {
		w.applyLocked()
	}
}

// Burst applies n updates at once to at most three hot keys of one
// resource (creating them if the resource is empty), so a queue that
// coalesces per key shows it. A burst larger than Options.WatchBuffer can
// overrun a slow watcher, which then gets its stream closed.
func (w *Workload) Burst(n int) {
	if n <= 0 || len(w.stores) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.c
	st := w.stores[w.rng.IntN(len(w.stores))]
	c.mu.Lock()
	if len(st.order) == 0 {
		for range min(3, n) {
			c.createGeneratedLocked(st, "")
			w.creates.Add(1)
		}
	}
	hot := make([]string, 0, 3)
	for len(hot) < min(3, len(st.order)) {
		k := st.order[w.rng.IntN(len(st.order))]
		if !slices.Contains(hot, k) {
			hot = append(hot, k)
		}
	}
	c.mu.Unlock()
	for i := range n {
		c.mu.Lock()
		if _, ok := st.objects[hot[i%len(hot)]]; ok { // another writer may have deleted it
			c.updateLocked(st, hot[i%len(hot)])
			w.updates.Add(1)
		}
		c.mu.Unlock()
	}
}

// applyLocked applies one seeded change. w.mu is held.
func (w *Workload) applyLocked() {
	if len(w.stores) == 0 {
		return
	}
	st := w.stores[w.rng.IntN(len(w.stores))]
	op := w.pickOp()
	c := w.c
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(st.order)
	if op == opCreate && w.max > 0 && n >= w.max {
		op = opUpdate
	}
	if n == 0 {
		op = opCreate
	}
	switch op {
	case opCreate:
		c.createGeneratedLocked(st, "")
		w.creates.Add(1)
	case opUpdate:
		c.updateLocked(st, st.order[w.rng.IntN(n)])
		w.updates.Add(1)
	case opDelete:
		c.deleteLocked(st, st.order[w.rng.IntN(n)])
		w.deletes.Add(1)
	}
}

func (w *Workload) pickOp() int {
	total := w.weights[0] + w.weights[1] + w.weights[2]
	if total == 0 {
		return opUpdate
	}
	r := w.rng.IntN(total)
	for op, wt := range w.weights {
		if r < wt {
			return op
		}
		r -= wt
	}
	return opUpdate
}
