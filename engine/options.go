package engine

import (
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/engine/fifo"
)

// QueueKind selects the queue between the reflector and the indexer; it is
// fifo.Kind, text-marshalled as "RealFIFO" or "DeltaFIFO".
type QueueKind = fifo.Kind

const (
	// RealFIFO is client-go v0.37's default queue: every event is its own
	// item, replaces and resyncs are atomic, pops are batched.
	RealFIFO = fifo.KindRealFIFO
	// DeltaFIFO is the classic queue: one row per key, deltas coalesced.
	DeltaFIFO = fifo.KindDeltaFIFO
)

// Options configures an Informer. The zero value behaves like client-go's
// NewSharedIndexInformer with no resync and no indexers.
type Options struct {
	// Name identifies the informer in snapshots and events; defaults to the
	// example object's type.
	Name string
	// Resource is the resource the informer watches, e.g. "pods"; shown only.
	Resource string
	// ResyncPeriod is the default resync period of handlers, as client-go's
	// defaultEventHandlerResyncPeriod; 0 disables resync.
	ResyncPeriod time.Duration
	// Indexers are installed on the cache before the informer starts.
	Indexers cache.Indexers
	// Queue is the queue kind; RealFIFO (the zero value) is the default.
	Queue QueueKind
	// ObjectDescription is passed to the reflector for its log messages.
	ObjectDescription string
	// Identifier names the informer for client-go's informer metrics, as
	// cache.SharedIndexInformerOptions.Identifier does: make one with
	// cache.NewInformerName(...).WithResource(gvr), or in a factory's
	// InformerFor with factory.InformerName().WithResource(gvr). Metrics are
	// published only when it is reserved (a named, first registration of
	// that resource), checked when the store is built (at construction) and
	// when the queue is (at Run), as client-go does.
	Identifier cache.InformerNameAndResource
	// MetricsProvider receives the queue's depth and processing latency
	// and the store's resourceVersion (see fifo.NewRealFIFO,
	// fifo.NewDeltaFIFOWithMetrics and indexer.NewWithMetrics). nil
	// publishes nothing: client-go would fall back to the provider
	// registered with cache.SetInformerMetricsProvider, but client-go offers
	// no way to read that one back.
	MetricsProvider cache.InformerMetricsProvider
	// Instrumentation tunes what the informer records.
	Instrumentation Instrumentation
}

// Instrumentation tunes the engine's self-observation. The defaults are
// what informtop itself uses; Off exists so benchmarks can measure the cost.
type Instrumentation struct {
	// Off disables the event stream and the ListerWatcher observer. Queue,
	// store and listener counters remain: they are part of those types.
	Off bool
	// Events is the ring events go to; several informers may share one.
	// nil gives the informer a ring of its own with EventRingSize slots.
	Events        *instr.Ring
	EventRingSize int
	// QueueHead is how many queue rows a Snapshot carries; default 64.
	QueueHead int
	// ItemEvents adds an event for every item on its way through: each
	// watch event, each pop, each indexer change, each notification handed
	// to the listeners, each handler call's start and finish. That tells the
	// whole story at teaching rates and costs at production ones, so it is
	// off by default: then only lifecycle events (lists, watches, relists,
	// replaces, resyncs, bookmarks, errors, panics, syncs) are logged, and
	// per-item activity is visible through the counters.
	ItemEvents bool
	// TapWatchStreams passes every watch stream through a goroutine that
	// records ERROR events, such as the 410 Gone of an expired
	// resourceVersion, which client-go's reflector handles silently (it just
	// relists). One channel hop per watch event, so off by default.
	TapWatchStreams bool
	// NoUpkeep turns off the once-a-second bookkeeping: dating watch events
	// and listeners' queued notifications, and sampling objects for memory
	// accounting. It exists so a benchmark can measure what that costs.
	NoUpkeep bool
	// MutationAttribution finds handlers that change the cached objects
	// they are given: each OnAdd and OnUpdate works on an object that is
	// deep-copied before the call and compared after it, and a change is
	// charged to the listener (ListenerStats.CacheMutations, an
	// EventCacheMutation with the changed fields) when no other listener was
	// handling the same object meanwhile; otherwise it is reported naming
	// nobody. It costs a copy and a comparison per call (see the README), so
	// it is off by default; off, it costs one nil check per call. It is
	// independent of client-go's KUBE_CACHE_MUTATION_DETECTOR, which the
	// engine honours as client-go does.
	MutationAttribution bool
	// DescribeMutation lists, for a mutation report, the fields that
	// differ between the copy taken before the call and the object after
	// it; resource is the informer's. nil lists no fields. The engine
	// holds no opinion on what may be shown: redact.FieldChanges lists
	// them with secret values hidden, as the dashboard and agent need.
	DescribeMutation func(resource string, before, after any) []string
}

const defaultQueueHead = 64
