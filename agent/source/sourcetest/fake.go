package sourcetest

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// Config is what a Fake replays.
type Config struct {
	// Kind and Title are what Source.Kind and Source.Title return.
	Kind, Title string
	// Notes are every frame's notes.
	Notes []string
	// Frames are the snapshots of each frame, in order; Pull returns the
	// current one (see Advance).
	Frames [][]source.Informer
	// Events are the events the fake holds, by ascending Seq.
	Events []source.Event
	// EventStats, when set, is every frame's EventStats; otherwise it is
	// the largest Emitted and Dropped of the current frame's snapshots.
	EventStats *source.RingStats
	// Status is every frame's Status.
	Status source.Status
	// Reasons are every frame's not-synced reasons.
	Reasons source.Reasons
	// Workqueues are every frame's controller workqueues (see SetWorkqueues).
	Workqueues []source.Workqueue
	// Server is every frame's API server figures, by informer.
	Server map[string]source.ServerStats
	// Stores are the caches Store serves, by informer; a *Store or any
	// other source.StoreReader.
	Stores map[string]source.StoreReader
}

// Fake is a read-only source.Source over a Config. Pull returns the
// current frame; Advance moves to the next.
type Fake struct {
	mu     sync.Mutex
	cfg    Config
	frame  int
	paused source.Processing // reports the pause state; nil: never paused
}

var _ source.Source = (*Fake)(nil)

// New returns a Fake on the first frame of cfg. The Fake owns cfg's slices
// and maps from then on.
func New(cfg Config) *Fake { return &Fake{cfg: cfg} }

// Kind implements source.Source.
func (f *Fake) Kind() string { return f.cfg.Kind }

// Title implements source.Source.
func (f *Fake) Title() string { return f.cfg.Title }

// Pull implements source.Source: the current frame's snapshots (a copy),
// the events with Seq >= cursor (0: the oldest), at most maxEvents of them
// when maxEvents > 0, and Next the Seq after the last returned (cursor when
// none, 1 at the start). Missed is always 0.
func (f *Fake) Pull(cursor uint64, maxEvents int) source.Frame {
	f.mu.Lock()
	out := source.Frame{Notes: append([]string(nil), f.cfg.Notes...), Status: f.cfg.Status, Reasons: maps.Clone(f.cfg.Reasons),
		Workqueues: slices.Clone(f.cfg.Workqueues), Server: maps.Clone(f.cfg.Server), Taken: time.Now()}
	if len(f.cfg.Frames) > 0 {
		out.Snapshots = source.CloneInformers(f.cfg.Frames[f.frame])
	}
	cursor = max(cursor, 1)
	out.Next = cursor
	for _, e := range f.cfg.Events {
		if e.Seq >= cursor && (maxEvents <= 0 || len(out.Events) < maxEvents) {
			out.Events = append(out.Events, e)
			out.Next = e.Seq + 1
		}
	}
	if f.cfg.EventStats != nil {
		out.EventStats = *f.cfg.EventStats
	} else {
		for _, s := range out.Snapshots {
			out.EventStats.Emitted = max(out.EventStats.Emitted, s.Events.Emitted)
			out.EventStats.Dropped = max(out.EventStats.Dropped, s.Events.Dropped)
			out.EventStats.DroppedLifecycle = max(out.EventStats.DroppedLifecycle, s.Events.DroppedLifecycle)
		}
	}
	p := f.paused
	f.mu.Unlock()
	if p != nil {
		out.Paused = p.Paused()
		if by, ok := p.(interface{ PausedBy() source.Pauser }); ok {
			out.PausedBy = by.PausedBy()
		}
	}
	return out
}

// Store implements source.Source: the reader configured for informer, nil
// when there is none.
func (f *Fake) Store(informer string) source.StoreReader {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sr, ok := f.cfg.Stores[informer]; ok && sr != nil {
		return sr
	}
	return nil
}

// Run implements source.Source: it waits for ctx to end.
func (f *Fake) Run(ctx context.Context) { <-ctx.Done() }

// WaitSynced implements source.Source: a fake has nothing to wait for.
func (f *Fake) WaitSynced(context.Context) error { return nil }

// Advance moves to the next frame; on the last frame it stays there.
func (f *Fake) Advance() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frame < len(f.cfg.Frames)-1 {
		f.frame++
	}
}

// SetFrames replaces the frames and goes back to the first.
func (f *Fake) SetFrames(frames [][]source.Informer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Frames, f.frame = frames, 0
}

// AddEvents appends events; their Seq must be above every held event's.
func (f *Fake) AddEvents(events ...source.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Events = append(f.cfg.Events, events...)
}

// SetStore serves sr as informer's cache from now on; nil serves none.
func (f *Fake) SetStore(informer string, sr source.StoreReader) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cfg.Stores == nil {
		f.cfg.Stores = map[string]source.StoreReader{}
	}
	f.cfg.Stores[informer] = sr
}

// SetStatus makes status every later frame's Status.
func (f *Fake) SetStatus(status source.Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Status = status
}

// SetWorkqueues makes queues every later frame's Workqueues; the Fake
// keeps the slice.
func (f *Fake) SetWorkqueues(queues []source.Workqueue) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Workqueues = queues
}

// SetServer makes server every later frame's API server figures, by
// informer; the Fake keeps the map.
func (f *Fake) SetServer(server map[string]source.ServerStats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Server = server
}

// ReportPaused makes every later frame's Paused read p.Paused(), and its
// PausedBy read p.PausedBy() when p has that method; NewCluster
// and NewDemo call it with their Controller.
func (f *Fake) ReportPaused(p source.Processing) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = p
}

// Controls implements source.Source: a Fake only shows; NewCluster,
// NewDemo and NewVerifying give it controls.
func (f *Fake) Controls() source.Controls { return source.Controls{} }

// has reports whether the current frame has the informer. It takes only
// f's lock: a Controller asks while holding its own.
func (f *Fake) has(informer string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cfg.Frames) == 0 {
		return false
	}
	for _, inf := range f.cfg.Frames[f.frame] {
		if inf.Name == informer {
			return true
		}
	}
	return false
}
