package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/local"
)

// Options tune a replay.
type Options struct {
	// Speed multiplies the recorded pace: 1 as recorded, 10 ten times
	// faster, 0 as fast as the reflector takes it (handlers then take no
	// time).
	Speed float64
	// Queue, when set, replays through this queue kind instead of the
	// recorded one, to compare them.
	Queue *engine.QueueKind
}

// Source replays a recording through engine informers.
type Source struct {
	*local.Source
	rec   *recording.Recording
	opts  Options
	clock *clock
	lws   []*listerWatcher
	end   time.Duration // the last record's time
	// lost says the recording dropped records (its disk fell behind); "" if not.
	lost string

	mu      sync.Mutex
	started time.Time
}

var _ source.Source = (*Source)(nil)

// New builds the replay of rec: one informer per recorded informer, with
// its recorded listeners. Nothing runs until Run.
func New(rec *recording.Recording, o Options) (*Source, error) {
	if o.Speed < 0 {
		return nil, fmt.Errorf("the replay speed must not be negative, got %v", o.Speed)
	}
	if len(rec.Header.Informers) == 0 {
		return nil, fmt.Errorf("%s records no informer: nothing to replay", rec.Path)
	}
	s := &Source{rec: rec, opts: o, clock: &clock{speed: o.Speed}}
	if n := len(rec.Records); n > 0 {
		s.end = rec.Records[n-1].At()
	}
	var dropped uint64
	for _, r := range rec.Records {
		if r.Kind == recording.KindGap {
			if dropped == 0 {
				s.lost = fmt.Sprintf("at %s", r.At().Round(time.Millisecond))
			}
			dropped += r.Dropped
		}
	}
	if dropped > 0 {
		s.lost = fmt.Sprintf("the recording lost %d records when its disk fell behind, first %s: from there the replay may differ from the live run", dropped, s.lost)
	}
	s.Source = local.New(local.Config{Kind: "replay", Title: "replay · " + filepath.Base(rec.Path), Notes: s.notes})
	durations := callDurations(rec.Records)
	for _, ri := range rec.Header.Informers {
		var q engine.QueueKind
		if err := q.UnmarshalText([]byte(ri.Queue)); err != nil {
			return nil, fmt.Errorf("%s: informer %s has queue %q: %v", rec.Path, ri.Name, ri.Queue, err)
		}
		if o.Queue != nil {
			q = *o.Queue
		}
		lw := newListerWatcher(ri.Name, calls(rec.Records, ri.Name), s.clock, ri.WatchList)
		lw.diverged = s.LogError
		s.lws = append(s.lws, lw)
		inf := engine.NewSharedIndexInformerWithOptions(lw, lw.exampleObject(), engine.Options{
			Name:     ri.Name,
			Resource: ri.Resource,
			Queue:    q,
			Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			// As in the demo: every item's way through is narrated, so a
			// step tells the whole story.
			Instrumentation: engine.Instrumentation{Events: s.Events(), ItemEvents: true, TapWatchStreams: true},
		})
		if _, err := s.AddInformer(ri.Name, ri.Resource, q, inf); err != nil {
			return nil, err
		}
		for _, rl := range ri.Listeners {
			ds := durations[ri.Name+"/"+rl.Name]
			spec := local.ListenerSpec{Name: rl.Name, Cost: s.costOf(ds)}
			if _, err := s.AddListener(ri.Name, spec); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// callDurations are each listener's recorded callback times, in order,
// keyed by informer/listener.
func callDurations(recs []recording.Record) map[string][]time.Duration {
	out := map[string][]time.Duration{}
	for _, r := range recs {
		if r.Kind == recording.KindCall {
			k := r.Informer + "/" + r.Listener
			out[k] = append(out[k], time.Duration(r.Duration))
		}
	}
	return out
}

// costOf hands out recorded durations one callback at a time (a listener
// calls it from its one goroutine), scaled to the replay's speed; past
// the recorded ones a callback takes no time.
func (s *Source) costOf(ds []time.Duration) func() time.Duration {
	next := 0
	return func() time.Duration {
		if next >= len(ds) {
			return 0
		}
		d := ds[next]
		next++
		return s.clock.scale(d)
	}
}

// Speed is the replay's pace (0: as fast as possible).
func (s *Source) Speed() float64 { return s.opts.Speed }

// Length is the time from the recording's start to its last record.
func (s *Source) Length() time.Duration { return s.end }

// Recording is what is being replayed.
func (s *Source) Recording() *recording.Recording { return s.rec }

// Run replays until ctx ends; the recorded clock starts now.
func (s *Source) Run(ctx context.Context) {
	s.mu.Lock()
	s.started = time.Now()
	s.clock.start = s.started
	s.mu.Unlock()
	if st := s.rec.Stop; st != nil {
		s.LogError(st.Sentence(s.rec.Path))
	}
	if s.lost != "" {
		s.LogError(s.lost)
	}
	s.Source.Run(ctx)
}

// Finished returns nil once every recorded call and event has been served
// to the reflectors, or ctx's error.
func (s *Source) Finished(ctx context.Context) error {
	for _, lw := range s.lws {
		select {
		case <-lw.finished:
		case <-ctx.Done():
			return fmt.Errorf("the replay of %s had not finished: %w", s.rec.Path, ctx.Err())
		}
	}
	return nil
}

// served reports whether every recorded call and event has been served.
func (s *Source) served() bool {
	for _, lw := range s.lws {
		select {
		case <-lw.finished:
		default:
			return false
		}
	}
	return true
}

func (s *Source) notes() []string {
	h := s.rec.Header
	out := []string{fmt.Sprintf("replay of %s: %s, recorded %s by informtop %s", filepath.Base(s.rec.Path), h.Source, h.Started.Format(time.DateTime), h.Informtop)}
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	pace := "as fast as possible"
	if s.opts.Speed > 0 {
		pace = fmt.Sprintf("%g× speed", s.opts.Speed)
	}
	switch {
	case started.IsZero():
	case s.served():
		out = append(out, fmt.Sprintf("the recording (%s) has been served, %s: the last watch stays open and silent", s.end.Round(time.Second), pace))
	default:
		at := time.Since(started)
		if s.opts.Speed > 0 {
			at = time.Duration(float64(at) * s.opts.Speed)
		}
		out = append(out, fmt.Sprintf("at %s of %s, %s", min(at, s.end).Round(time.Second), s.end.Round(time.Second), pace))
	}
	if st := s.rec.Stop; st != nil {
		out = append(out, st.Sentence(filepath.Base(s.rec.Path)))
	}
	if s.lost != "" {
		out = append(out, s.lost)
	}
	return out
}
