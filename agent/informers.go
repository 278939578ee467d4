package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// informers is the source NewHandler serves: the informers of its Set in
// the order added, and the controller's workqueues. It is a view: the
// informers run where the controller runs them, so Run only waits and its
// one control is Cuts, which it refuses with a sentence.
//
// Events: each informer logs to a ring of its own, and an instr.Merger
// merges them, filled on each pull (never by the informers, so nothing is
// added to their path); cursors are the merger's.
type informers struct {
	title  string
	set    *Set
	served atomic.Pointer[view]
	queues *WorkqueueMetrics // nil: frames carry no workqueues

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

// view is what the source serves at one moment: the set's informers in
// the order added. Views are never changed once built,
// and a newer view extends an older one, so the merger can learn the
// informers it has not seen by position.
type view struct {
	informers []*watched
	byName    map[string]*watched
	fromSet   int // how many of the set's informers it holds
}

func newView(added []*watched) *view {
	v := &view{
		informers: added,
		byName:    make(map[string]*watched, len(added)),
		fromSet:   len(added),
	}
	for _, inf := range v.informers {
		v.byName[inf.name] = inf
	}
	return v
}

// newInformers serves set's informers and queues (nil: none).
func newInformers(title string, set *Set, queues *WorkqueueMetrics) *informers {
	s := &informers{title: title, set: set, queues: queues, mergedSize: instr.DefaultRingSize}
	s.served.Store(newView(nil))
	return s
}

// current returns the view to serve now, rebuilding it only when the set
// has grown since the last one (the set only grows, so its length tells).
func (s *informers) current() *view {
	v := s.served.Load()
	added := s.set.informers()
	if len(added) == v.fromSet {
		return v
	}
	nv := newView(added)
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
	f.Events, f.Next, f.Missed = source.EventsOf(evs), next, missed
	f.EventStats = s.stats()
	if s.queues != nil {
		f.Workqueues = s.queues.snapshot()
	}
	return f
}

// since returns at most max events with sequence >= cursor (0: the oldest
// held) of the informers served. The view is read again after the events
// are, so that events another pull drained from a ring that just joined
// are not filtered out by an older view (the view only grows).
func (s *informers) since(cursor uint64, max int) (events []instr.Event, next, missed uint64) {
	s.learn(s.current().informers)
	events, next, missed = s.merged().Since(cursor, max)
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
	return source.RingStatsOf(s.merged().Stats())
}

// merged is the merger, made on first use.
func (s *informers) merged() *instr.Merger {
	s.mergerOnce.Do(func() { s.merger = instr.NewMerger(s.mergedSize) })
	return s.merger
}

// Store implements source.Source: inf's cache, redacted by its resource.
// Unknown, redaction still hides what names itself a Secret.
func (s *informers) Store(name string) source.StoreReader {
	inf := s.current().byName[name]
	if inf == nil {
		return nil
	}
	return inf.store(inf.resource)
}

// Cut implements source.Cutter: client-go's cache cannot be cut.
func (s *informers) Cut(_ context.Context, name string) (verify.Cut, error) {
	inf := s.current().byName[name]
	if inf == nil {
		return verify.Cut{}, source.NoInformer(name)
	}
	return verify.Cut{}, fmt.Errorf("it is client-go's own informer, whose cache cannot be read as of one resourceVersion; so attach --verify cannot check it (docs/agent.md)")
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

// The handler's Extras.

// identity is the group, version and resource the informer lists and
// watches, for metric labels; zero when unknown.
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
	return strconv.FormatUint(inf.counter.generation(), 10) + "@" + inf.LastSyncResourceVersion()
}
