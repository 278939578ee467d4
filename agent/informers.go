package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/engine/instr"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/local"
	"github.com/informtop/informtop/verify"
)

// informers is the source NewHandler serves: the engine informers given
// to it, then those of its Set in the order added, and the controller's
// workqueues. It is a view: the informers run where the controller runs
// them, so Run only waits and its one control is Cuts.
//
// Events: when every informer writes to one ring (engine's
// Instrumentation.Events, the usual set-up) and no more can come, frames
// read that ring directly: cursors are its sequence numbers and Missed is
// what the ring overwrote before the client asked. Otherwise (informers
// with rings of their own, or a Set that may bring new ones) an
// instr.Merger merges them, filled on each pull (never by the informers,
// so nothing is added to their path); cursors are then the merger's.
type informers struct {
	title  string
	fixed  []*watched // given to NewHandler
	set    *Set       // nil: the fixed informers only
	served atomic.Pointer[view]
	queues *WorkqueueMetrics // nil: frames carry no workqueues
	// resources is Options.Resources; it decides redaction too.
	resources map[string]schema.GroupVersionResource

	single *instr.Ring // the one ring all informers share; nil when merging
	// merger is made by the first pull (mergerOnce), not before: it holds
	// thousands of events' room, which a controller nobody attaches to
	// should not pay for. mergedSize is its size.
	merger     *instr.Merger
	mergerOnce sync.Once
	mergedSize int
	mu         sync.Mutex // guards learned
	// learned is how many of the view's informers (a growing list) had
	// their rings given to the merger.
	learned int
}

var (
	_ source.Source = (*informers)(nil)
	_ source.Cutter = (*informers)(nil)
)

// view is what the source serves at one moment: its fixed informers,
// then the set's in the order added. Views are never changed once built,
// and a newer view extends an older one, so the merger can learn the
// informers it has not seen by position.
type view struct {
	informers []*watched
	byName    map[string]*watched
	fromSet   int // how many of the set's informers it holds
}

func newView(fixed, added []*watched) *view {
	v := &view{
		informers: append(slices.Clip(fixed), added...),
		byName:    make(map[string]*watched, len(fixed)+len(added)),
		fromSet:   len(added),
	}
	for _, inf := range v.informers {
		v.byName[inf.name] = inf
	}
	return v
}

// newInformers serves fixed and, when set is not nil, the set's
// informers; mergedSize is Options.MergedEventRingSize.
func newInformers(title string, fixed []*watched, set *Set, queues *WorkqueueMetrics, resources map[string]schema.GroupVersionResource, mergedSize int) *informers {
	s := &informers{title: title, fixed: fixed, set: set, queues: queues, resources: resources}
	var rings []*instr.Ring
	for _, inf := range fixed {
		if r := inf.events(); r != nil && !slices.Contains(rings, r) {
			rings = append(rings, r)
		}
	}
	switch {
	case set == nil && len(rings) == 0:
		s.single = instr.NewRing(1)
	case set == nil && len(rings) == 1:
		s.single = rings[0]
	default:
		if mergedSize <= 0 {
			mergedSize = instr.DefaultRingSize * max(len(rings), 1)
		}
		s.mergedSize = mergedSize
	}
	s.served.Store(newView(fixed, nil))
	return s
}

// current returns the view to serve now, rebuilding it only when the set
// has grown since the last one (the set only grows, so its length tells).
func (s *informers) current() *view {
	v := s.served.Load()
	if s.set == nil {
		return v
	}
	added := s.set.informers()
	if len(added) == v.fromSet {
		return v
	}
	nv := newView(s.fixed, added)
	// A concurrent request may have stored a newer view: keep it then.
	s.served.CompareAndSwap(v, nv)
	return nv
}

// Kind implements source.Source.
func (s *informers) Kind() string { return "agent" }

// Title implements source.Source: the agent's name for its process.
func (s *informers) Title() string { return s.title }

// Pull implements source.Source: every served informer's snapshot, in the
// order served, the events from cursor on and the workqueues.
func (s *informers) Pull(cursor uint64, maxEvents int) source.Frame {
	f := source.Frame{Taken: time.Now(), Status: source.Status{State: source.Live}}
	v := s.current()
	f.Snapshots = make([]source.Informer, len(v.informers))
	for i, inf := range v.informers {
		f.Snapshots[i] = inf.snapshot(f.Taken)
	}
	evs, next, missed := s.since(cursor, maxEvents)
	f.Events, f.Next, f.Missed = local.EventsOf(evs), next, missed
	f.EventStats = s.stats()
	if s.queues != nil {
		f.Workqueues = s.queues.Snapshot()
	}
	return f
}

// since returns at most max events with sequence >= cursor (0: the oldest
// held) of the informers served. The view is read again after the events
// are, so that events another pull drained from a ring that just joined
// are not filtered out by an older view (the view only grows).
func (s *informers) since(cursor uint64, max int) (events []instr.Event, next, missed uint64) {
	if s.single != nil {
		events, next, missed = s.single.Since(cursor, max)
	} else {
		s.learn(s.current().informers)
		events, next, missed = s.merged().Since(cursor, max)
	}
	v := s.current()
	out := events[:0]
	for _, e := range events {
		if _, served := v.byName[e.Informer]; e.Informer != "" && !served {
			continue // another informer sharing the ring: not served here
		}
		out = append(out, e)
	}
	return out, next, missed
}

// learn gives the merger the rings of the informers not looked at yet. A
// pull may come with an older, shorter list than the last one learned: it
// has nothing new.
func (s *informers) learn(infs []*watched) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(infs) <= s.learned {
		return
	}
	m := s.merged()
	for _, inf := range infs[s.learned:] {
		if r := inf.events(); r != nil {
			m.Add(r)
		}
	}
	s.learned = len(infs)
}

// stats are the totals of the rings the events come from.
func (s *informers) stats() source.RingStats {
	if s.single != nil {
		return local.RingStatsOf(s.single.Stats())
	}
	return local.RingStatsOf(s.merged().Stats())
}

// merged is the merger, made on first use.
func (s *informers) merged() *instr.Merger {
	s.mergerOnce.Do(func() { s.merger = instr.NewMerger(s.mergedSize) })
	return s.merger
}

// Store implements source.Source: inf's cache, redacted by its resource:
// Options.Resources first, else what the informer knows of itself (its
// Options.Resource or Identifier). Unknown, redaction still hides what
// names itself a Secret.
func (s *informers) Store(name string) source.StoreReader {
	inf := s.current().byName[name]
	if inf == nil {
		return nil
	}
	if gvr, ok := s.resources[name]; ok && gvr.Resource != "" {
		return inf.store(gvr.GroupResource().String())
	}
	return inf.store(inf.resource)
}

// Cut implements source.Cutter with the engine's cut.
func (s *informers) Cut(_ context.Context, name string) (verify.Cut, error) {
	inf := s.current().byName[name]
	if inf == nil {
		return verify.Cut{}, source.NoInformer(name)
	}
	if inf.eng == nil {
		return verify.Cut{}, fmt.Errorf("it is client-go's own informer, whose cache cannot be read as of one resourceVersion; build it with agent.NewInformer(set, agent.WithEngine()) to verify it")
	}
	return local.CutInformer(inf.eng)
}

// Run implements source.Source: the informers run where the controller
// runs them, so it only waits for ctx.
func (s *informers) Run(ctx context.Context) { <-ctx.Done() }

// WaitSynced implements source.Source: it returns once every informer
// served has synced, or says which had not when ctx ends.
func (s *informers) WaitSynced(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var pending []string
		for _, inf := range s.current().informers {
			if !inf.HasSynced() {
				pending = append(pending, inf.name)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return &notSyncedError{pending, ctx.Err()}
		}
	}
}

type notSyncedError struct {
	names []string
	err   error
}

func (e *notSyncedError) Error() string {
	return "informers not synced: " + strings.Join(e.names, ", ") + ": " + e.err.Error()
}
func (e *notSyncedError) Unwrap() error { return e.err }

// Controls implements source.Source: the agent is read-only, so only
// cuts.
func (s *informers) Controls() source.Controls { return source.Controls{Cuts: s} }

// The handler's extras for engine informers (see extras).

// identity is the group, version and resource the informer was given as
// its client-go identity (engine.Options.Identifier); zero when none.
func (s *informers) identity(name string) schema.GroupVersionResource {
	if inf := s.current().byName[name]; inf != nil {
		return inf.gvr
	}
	return schema.GroupVersionResource{}
}

// cutState adds the resourceVersion the informer last received to the
// cache's generation: a cut also holds what is queued and not yet in the
// cache. (The reflector records it just after queueing, so a cut can miss
// an object queued microseconds before the request.)
func (s *informers) cutState(name string) string {
	inf := s.current().byName[name]
	if inf == nil {
		return ""
	}
	if inf.eng == nil {
		return strconv.FormatUint(inf.counter.generation(), 10) + "@" + inf.LastSyncResourceVersion()
	}
	return strconv.FormatUint(inf.eng.StoreView().Generation(), 10) + "@" + inf.LastSyncResourceVersion()
}
