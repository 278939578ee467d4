package cluster

import (
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
)

// Options configure a Cluster. Zero values take the documented defaults.
type Options struct {
	// Seed makes generated objects reproducible: the same calls in the
	// same order produce the same objects.
	Seed int64
	// HistorySize is how many events per resource are kept for watch
	// resumption (the watch cache's window) and for exact-resourceVersion
	// lists (etcd's history). Default 1000; negative keeps none (a watch
	// resumed from before the newest event gets 410).
	HistorySize int
	// WatchList serves streaming lists (sendInitialEvents). When false the
	// server rejects them as an API server without the WatchList feature
	// does, and reflectors fall back to LIST.
	WatchList bool
	// WatchTimeout caps how long a watch stream lives; a shorter
	// timeoutSeconds in the request wins. Default 5m.
	WatchTimeout time.Duration
	// BookmarkFrequency is how often a watch that allows bookmarks gets
	// one, and a last one comes 2s before its timeout, as kube-apiserver
	// v1.37 schedules them (see nextBookmark). Default
	// DefaultBookmarkFrequency (a minute); negative disables periodic
	// bookmarks. A scenario that shortens it to teach says so on screen.
	BookmarkFrequency time.Duration
	// WatchBuffer is how many events a watch stream may hold for a client
	// that is not reading. When it is full the watch cache waits at most
	// DispatchBudget for room, then closes the stream. Default 1024.
	WatchBuffer int
	// StorageBuffer is the capacity of each of the storage watcher's two
	// buffers, incoming and outgoing. Default 100, as kube-apiserver's.
	StorageBuffer int
	// DispatchBudget is how long the watch cache waits for a watcher with
	// a full buffer before terminating it. Default 100ms.
	DispatchBudget time.Duration
	// Namespaces generated objects are spread over. Default: default,
	// kube-system, monitoring, payments, checkout, search.
	Namespaces []string
	// Clock stamps creation times and rotations; default the real clock.
	// When it is also a clock.Clock (a fake one in tests), it times the
	// bookmarks too; otherwise they run on the real clock.
	Clock clock.PassiveClock
}

// DefaultNamespaces are the namespaces used when Options.Namespaces is empty.
var DefaultNamespaces = []string{"default", "kube-system", "monitoring", "payments", "checkout", "search"}

func (o Options) withDefaults() Options {
	if o.HistorySize == 0 {
		o.HistorySize = 1000
	} else if o.HistorySize < 0 {
		o.HistorySize = 0
	}
	if o.WatchTimeout <= 0 {
		o.WatchTimeout = 5 * time.Minute
	}
	if o.BookmarkFrequency == 0 {
		o.BookmarkFrequency = DefaultBookmarkFrequency
	}
	if o.WatchBuffer <= 0 {
		o.WatchBuffer = 1024
	}
	if o.StorageBuffer <= 0 {
		o.StorageBuffer = 100
	}
	if o.DispatchBudget <= 0 {
		o.DispatchBudget = 100 * time.Millisecond
	}
	if len(o.Namespaces) == 0 {
		o.Namespaces = DefaultNamespaces
	}
	o.Namespaces = append([]string(nil), o.Namespaces...)
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}

// Cluster is the simulated API server. All methods are safe for concurrent
// use. See the package documentation for the semantics it reproduces.
type Cluster struct {
	opts   Options
	stats  counters
	timers clock.Clock // times bookmarks: Options.Clock when it can

	mu        sync.Mutex // guards everything below
	rv        uint64     // newest resourceVersion handed out, shared by all kinds
	stores    map[*kind]*store
	available bool
	gen       *generator
}

// New returns an empty cluster at resourceVersion 1.
func New(opts Options) *Cluster {
	opts = opts.withDefaults()
	c := &Cluster{
		opts:      opts,
		rv:        1,
		stores:    make(map[*kind]*store, len(kinds)),
		available: true,
		gen:       newGenerator(opts.Seed, opts.Clock, opts.Namespaces),
		timers:    clock.RealClock{},
	}
	if t, ok := opts.Clock.(clock.Clock); ok {
		c.timers = t
	}
	for _, k := range kinds {
		st := newStore(k, opts.HistorySize)
		st.hist.compacted = c.rv
		st.path.cache.compacted = c.rv
		c.stores[k] = st
	}
	return c
}

// Resources lists the served resources: "pods", "configmaps",
// "deployments.apps", "secrets".
func (c *Cluster) Resources() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.resource
	}
	return out
}

// ExampleObject returns an empty object of the resource's type, as an
// informer's exampleObject.
func (c *Cluster) ExampleObject(resource string) (runtime.Object, error) {
	k, err := lookupKind(resource)
	if err != nil {
		return nil, err
	}
	return k.newObj(), nil
}

// ResourceVersion is the newest resourceVersion the server has handed out.
func (c *Cluster) ResourceVersion() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rv
}

// Snapshot returns deep copies of every object of a resource, keyed
// "namespace/name": the server's truth, for convergence checks. Nil for an
// unknown resource.
func (c *Cluster) Snapshot(resource string) map[string]runtime.Object {
	st, err := c.store(resource)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	objs := make(map[string]runtime.Object, len(st.objects))
	for k, o := range st.objects {
		objs[k] = o
	}
	c.mu.Unlock()
	for k, o := range objs {
		objs[k] = o.DeepCopyObject()
	}
	return objs
}

// Keys returns the keys of a resource, sorted.
func (c *Cluster) Keys(resource string) []string {
	st, err := c.store(resource)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	keys := append([]string(nil), st.order...)
	c.mu.Unlock()
	sort.Strings(keys)
	return keys
}

// Len returns how many objects of a resource exist.
func (c *Cluster) Len(resource string) int {
	st, err := c.store(resource)
	if err != nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(st.objects)
}

func (c *Cluster) store(resource string) (*store, error) {
	k, err := lookupKind(resource)
	if err != nil {
		return nil, err
	}
	return c.stores[k], nil
}
