package local

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/source"
)

// DefaultEventRingSize is the shared event ring of a Source: enough for a
// few seconds of per-item events at teaching rates.
const DefaultEventRingSize = 16384

// Config describes a Source.
type Config struct {
	// Kind and Title are what Source.Kind and Source.Title return.
	Kind, Title string
	// EventRingSize is the size of the ring every informer's events go to;
	// DefaultEventRingSize when 0.
	EventRingSize int
	// Notes, when set, gives the notes of each frame.
	Notes func() []string
	// Status, when set, gives the status of each frame from its
	// informers; otherwise the source is always live.
	Status func(infs []source.Informer) source.Status
	// Reason, when set, says why an informer has not synced where it
	// knows better than its figures (an RBAC check); "" leaves it to
	// whoever shows the frame.
	Reason func(informer string, s source.Informer) string
	// Server, when set, gives what the API server says about each
	// informer's resource (Frame.Server).
	Server func() map[string]source.ServerStats
}

// Source is a set of engine informers running in this process. It
// implements source.Source, source.Processing, source.Stalling and
// source.QueueReader.
//
// Locking: mu guards every informer's listener list, running and the
// informer list's changes; it is held while a listener is registered or
// removed (so names stay unique) but never while waiting for a handler.
// The engine never calls back into a Source, so holding mu across an
// informer call cannot deadlock. The informer list itself is copied on
// write, so readers (a pull, a control) take it without mu.
type Source struct {
	cfg    Config
	events *instr.Ring

	infs atomic.Pointer[[]*Informer]
	// runCtx and runWG are Run's: informers added while it runs start
	// under them. Set under mu while running.
	runCtx context.Context
	runWG  *sync.WaitGroup

	stop    chan struct{} // closed when Run's context ends
	stopCtx context.Context
	stopFn  context.CancelFunc
	started atomic.Bool
	syncWG  sync.WaitGroup

	mu      sync.Mutex
	running bool
	// calls, when set, is told every simulated listener's callbacks.
	calls func(informer, listener string, c Call, d time.Duration)

	pauseMu  sync.Mutex // orders pauses and resumes with who made them
	pausedBy source.Pauser
}

var (
	_ source.Source         = (*Source)(nil)
	_ source.Processing     = (*Source)(nil)
	_ source.Stalling       = (*Source)(nil)
	_ source.QueueReader    = (*Source)(nil)
	_ source.QueuePager     = (*Source)(nil)
	_ source.ListenerReader = (*Source)(nil)
	_ source.Cutter         = (*Source)(nil)
)

// New returns an empty Source; add informers with AddInformer, then Run.
func New(cfg Config) *Source {
	if cfg.EventRingSize <= 0 {
		cfg.EventRingSize = DefaultEventRingSize
	}
	s := &Source{cfg: cfg, events: instr.NewRing(cfg.EventRingSize), stop: make(chan struct{})}
	s.stopCtx, s.stopFn = context.WithCancel(context.Background())
	return s
}

// Events is the ring the informers of this source must emit to (give it
// to engine.Instrumentation.Events).
func (s *Source) Events() *instr.Ring { return s.events }

// Stopping is closed once Run's context has ended; simulated work should
// end early then.
func (s *Source) Stopping() <-chan struct{} { return s.stop }

// Kind implements source.Source.
func (s *Source) Kind() string { return s.cfg.Kind }

// Title implements source.Source.
func (s *Source) Title() string { return s.cfg.Title }

// Pull implements source.Source: snapshots, events after cursor, notes,
// status and the pause state, read in that order.
func (s *Source) Pull(cursor uint64, maxEvents int) source.Frame {
	infs := s.list()
	f := source.Frame{Snapshots: make([]source.Informer, len(infs)), Taken: time.Now(), Status: source.Status{State: source.Live}}
	for i, e := range infs {
		f.Snapshots[i] = e.model(e.inf.Snapshot())
	}
	evs, next, missed := s.events.Since(cursor, maxEvents)
	f.Events, f.Next, f.Missed = source.EventsOf(evs), next, missed
	f.EventStats = source.RingStatsOf(s.events.Stats())
	if s.cfg.Notes != nil {
		f.Notes = s.cfg.Notes()
	}
	if s.cfg.Status != nil {
		f.Status = s.cfg.Status(f.Snapshots)
	}
	f.Paused, f.PausedBy = s.Paused(), s.PausedBy()
	if s.cfg.Server != nil {
		f.Server = s.cfg.Server()
	}
	if s.cfg.Reason == nil {
		return f
	}
	for _, inf := range f.Snapshots {
		if inf.Synced {
			continue
		}
		if why := s.cfg.Reason(inf.Name, inf); why != "" {
			if f.Reasons == nil {
				f.Reasons = source.Reasons{}
			}
			f.Reasons[inf.Name] = why
		}
	}
	return f
}

// States is every informer's state in the model, in the order added.
func (s *Source) States() []source.Informer {
	infs := s.list()
	out := make([]source.Informer, len(infs))
	for i, e := range infs {
		out[i] = e.State()
	}
	return out
}

// Store implements source.Source.
func (s *Source) Store(informer string) source.StoreReader {
	e := s.Informer(informer)
	if e == nil {
		return nil
	}
	return InformerStore(e.inf)
}

// QueueDeltas implements source.QueueReader.
func (s *Source) QueueDeltas(informer, key string) cache.Deltas {
	e := s.Informer(informer)
	if e == nil {
		return nil
	}
	return e.inf.QueueDeltas(key)
}

// QueueRows implements source.QueuePager.
func (s *Source) QueueRows(informer string, offset, max int) ([]source.QueueItem, int) {
	e := s.Informer(informer)
	if e == nil {
		return nil, 0
	}
	rows, total := e.inf.QueueRows(offset, max)
	return rows, total
}

// ListenerBacklog implements source.ListenerReader.
func (s *Source) ListenerBacklog(informer, listener string, max int) []source.Pending {
	e := s.Informer(informer)
	if e == nil {
		return nil
	}
	return e.inf.ListenerBacklog(listener, max)
}

// Log records a control action (an operator's or a script's) in the
// event log.
func (s *Source) Log(detail string) {
	s.events.Emit(instr.Event{Type: pipeline.EventControl, Detail: detail})
}

// LogError records a problem that stops nothing in the event log.
func (s *Source) LogError(detail string) {
	s.events.Emit(instr.Event{Type: pipeline.EventError, Detail: detail})
}

func (s *Source) lookup(informer string) (*Informer, error) {
	if e := s.Informer(informer); e != nil {
		return e, nil
	}
	return nil, source.NoInformer(informer)
}

// Controls implements source.Source: informers running in this process
// can be paused, stepped, resynced, read queue by queue and cut;
// simulated listeners can be stalled.
func (s *Source) Controls() source.Controls {
	return source.Controls{Processing: s, Stalling: s, Queue: s, QueuePager: s, Backlog: s, Cuts: s}
}
