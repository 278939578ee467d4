package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
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
	Queue *source.QueueKind
}

// feedBudget bounds the bytes (decompressed) of the records read ahead of
// the replay, waiting for their informer: reading runs ahead of the
// replayed clock by at most this much (and one record per informer),
// however long the file. Decoded, they take a few times more. A variable
// for the tests.
var feedBudget int64 = 16 << 20

// Source replays a recording through engine informers. It reads the file
// as it goes, a bounded way ahead of what it serves.
type Source struct {
	*local.Source
	r      *recording.Reader
	path   string
	header recording.Header
	opts   Options
	clock  *clock
	lws    []*listerWatcher
	byName map[string]*listerWatcher
	budget budget

	wg sync.WaitGroup // the goroutine reading the file

	mu      sync.Mutex
	started time.Time
	// What reading the file found so far.
	end       time.Duration // the last record's time
	progress  time.Time     // when the last record was read
	dropped   uint64        // records the recording lost, first at firstGap
	firstGap  time.Duration
	durations map[string][]time.Duration // recorded callback times by informer/listener
	changed   chan struct{}              // closed and replaced when durations grow, and when reading ends
	finished  bool                       // the file is read to its end, or failed
	stop      *recording.Stop
	unstored  recording.Unstored
	err       error         // the file's problem that stopped the replay
	read      chan struct{} // closed once finished
	failed    chan struct{} // closed once err is set and, midway through the file, logged
	logged    bool          // what reading found was logged
}

var _ source.Source = (*Source)(nil)

// New builds the replay of what r reads: one informer per recorded
// informer, with its recorded listeners. It reads ahead until it knows
// how each informer's objects are served, so a file whose first records
// are wrong is refused here. The Source owns r and closes it; nothing is
// served until Run. Close it if Run is never called.
func New(r *recording.Reader, o Options) (*Source, error) {
	s, err := newSource(r, o)
	if err != nil {
		r.Close()
		return nil, err
	}
	return s, nil
}

func newSource(r *recording.Reader, o Options) (*Source, error) {
	if o.Speed < 0 {
		return nil, fmt.Errorf("the replay speed must not be negative, got %v", o.Speed)
	}
	h := r.Header
	if len(h.Informers) == 0 {
		return nil, fmt.Errorf("%s records no informer: nothing to replay", r.Name())
	}
	s := &Source{r: r, path: r.Name(), header: h, opts: o, clock: &clock{speed: o.Speed},
		byName: map[string]*listerWatcher{}, durations: map[string][]time.Duration{},
		changed: make(chan struct{}), read: make(chan struct{}), failed: make(chan struct{})}
	s.budget.freed = make(chan struct{})
	s.Source = local.New(local.Config{Kind: "replay", Title: "replay · " + filepath.Base(s.path), Notes: s.notes})
	queues := make([]source.QueueKind, len(h.Informers))
	for i, ri := range h.Informers {
		if err := queues[i].UnmarshalText([]byte(ri.Queue)); err != nil {
			return nil, fmt.Errorf("%s: informer %q has queue %q, which this informtop does not know: replay it with the informtop that recorded it", s.path, ri.Name, ri.Queue)
		}
		if o.Queue != nil {
			queues[i] = *o.Queue
		}
		lw := newListerWatcher(s, ri.Name, ri.WatchList)
		s.lws = append(s.lws, lw)
		s.byName[ri.Name] = lw
		if o.Speed > 0 {
			for _, l := range ri.Listeners {
				s.durations[ri.Name+"/"+l.Name] = nil
			}
		}
	}
	if err := s.lookAhead(); err != nil {
		return nil, err
	}
	for i, ri := range h.Informers {
		lw := s.lws[i]
		if gvk, typed, _ := r.Kind(ri.Name); typed {
			lw.typed = &gvk
		}
		if _, err := s.NewInformer(local.InformerSpec{Name: ri.Name, Resource: ri.Resource, Queue: queues[i],
			ListerWatcher: lw, Example: lw.exampleObject(),
			// As in the demo: every item's way through is narrated, so a
			// step tells the whole story.
			ItemEvents: true, TapWatchStreams: true}); err != nil {
			return nil, err
		}
		for _, rl := range ri.Listeners {
			spec := local.ListenerSpec{Name: rl.Name, Cost: s.costOf(ri.Name + "/" + rl.Name)}
			if _, err := s.AddListener(ri.Name, spec); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// lookAhead reads until every informer's first object is read (which
// settles how its objects are served: see recording.Reader.Kind), the
// read-ahead budget is spent, or the file ends. A problem the file has
// there is returned.
func (s *Source) lookAhead() error {
	for !s.budget.full() {
		settled := true
		for _, lw := range s.lws {
			settled = settled && s.r.KindSettled(lw.informer)
		}
		if settled {
			return nil
		}
		rec, err := s.r.Next()
		if err != nil {
			s.finish(err)
			if s.err != nil {
				return s.err
			}
			return nil
		}
		s.push(context.Background(), rec, false)
	}
	return nil
}

// Run replays until ctx ends; the recorded clock starts now.
func (s *Source) Run(ctx context.Context) {
	s.mu.Lock()
	s.started = time.Now()
	s.clock.start = s.started
	finished := s.finished
	s.mu.Unlock()
	if finished {
		s.logRead()
	} else {
		pctx, cancel := context.WithCancel(ctx)
		s.wg.Go(func() { s.pump(pctx) })
		defer s.wg.Wait()
		defer cancel()
	}
	s.Source.Run(ctx)
}

// Close releases the file, unless reading it has ended already. Call it
// after Run returns, or instead of Run.
func (s *Source) Close() error {
	s.wg.Wait()
	s.finish(errors.New("closed"))
	return nil
}

// pump reads the rest of the file into the informers' feeds.
func (s *Source) pump(ctx context.Context) {
	for {
		rec, err := s.r.Next()
		if err != nil {
			s.finishLogged(err)
			return
		}
		if !s.push(ctx, rec, true) {
			s.finish(ctx.Err())
			return
		}
	}
}

// finish records how reading ended: io.EOF at the end of the file, the
// file's problem, or the context's error when the replay stopped first.
func (s *Source) finish(err error) {
	if s.finishQuietly(err) {
		close(s.failed)
	}
}

// finishLogged is finish with the replay's log written first, so whoever
// the file's problem wakes (Finished, Settled) finds it there.
func (s *Source) finishLogged(err error) {
	failed := s.finishQuietly(err)
	s.logRead()
	if failed {
		close(s.failed)
	}
}

// finishQuietly records how reading ended and reports whether it was the
// file's problem, for the caller to close failed: once, as only the
// first call finishes.
func (s *Source) finishQuietly(err error) (failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return false
	}
	s.finished = true
	s.progress = time.Now()
	var fe *recording.FileError
	switch {
	case errors.Is(err, io.EOF):
		s.stop = s.r.Stop()
	case errors.As(err, &fe):
		s.err = err
		failed = true
	}
	s.unstored = s.r.Unstored()
	s.r.Close()
	close(s.read)
	close(s.changed)
	for _, lw := range s.lws {
		lw.closeFeed()
	}
	return failed
}

// logRead puts in the replay's log what reading the file found that a
// user must know: where it is cut short, what it lost, what it refused.
func (s *Source) logRead() {
	s.mu.Lock()
	if s.logged || !s.finished {
		s.mu.Unlock()
		return
	}
	s.logged = true
	var lines []string
	if s.stop != nil {
		lines = append(lines, s.stop.Sentence(s.path))
	}
	lines = append(lines, s.lostLocked(), s.unstored.Sentence(s.path))
	if s.err != nil {
		lines = append(lines, fmt.Sprintf("the replay stops here: %v", s.err))
	}
	s.mu.Unlock()
	for _, l := range lines {
		if l != "" {
			s.LogError(l)
		}
	}
}

// push hands rec to its informer's feed, or keeps what it says about the
// recording. With wait, it waits while the read-ahead budget is spent and
// the feed has records to serve first; false when ctx ended meanwhile.
func (s *Source) push(ctx context.Context, rec recording.Record, wait bool) bool {
	s.mu.Lock()
	s.end = max(s.end, rec.At())
	s.progress = time.Now()
	switch rec.Kind {
	case recording.KindGap:
		if s.dropped == 0 {
			s.firstGap = rec.At()
		}
		s.dropped += rec.Dropped
		s.mu.Unlock()
		return true
	case recording.KindCall:
		key := rec.Informer + "/" + rec.Listener
		if ds, ok := s.durations[key]; ok {
			s.durations[key] = append(ds, time.Duration(rec.Duration))
			close(s.changed)
			s.changed = make(chan struct{})
		}
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	lw := s.byName[rec.Informer]
	for wait {
		// An informer whose feed is empty gets its record whatever the
		// others hold: one slow informer must not hold up the rest.
		full, freed := s.budget.state()
		if !full || lw.pending() == 0 {
			break
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return false
		}
	}
	s.budget.take(rec.Size)
	lw.add(rec)
	return true
}

// costOf hands out a listener's recorded callback times one callback at
// a time (a listener calls it from its one goroutine), scaled to the
// replay's speed, waiting for the file to be read that far; past the
// recorded ones a callback takes no time.
func (s *Source) costOf(key string) func() time.Duration {
	return func() time.Duration {
		if s.opts.Speed <= 0 {
			return 0
		}
		for {
			s.mu.Lock()
			ds, finished, changed := s.durations[key], s.finished, s.changed
			if len(ds) > 0 {
				s.durations[key] = ds[1:]
				s.mu.Unlock()
				return s.clock.scale(ds[0])
			}
			s.mu.Unlock()
			if finished {
				return 0
			}
			<-changed
		}
	}
}

// budget counts the bytes of records read ahead and not yet served.
type budget struct {
	mu      sync.Mutex
	used    int64
	waiting bool          // the reader waits for freed
	freed   chan struct{} // closed and replaced when bytes are given back to a waiting reader
}

func (b *budget) full() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used >= feedBudget
}

// state says whether the budget is spent and, when it is, gives a
// channel closed when bytes are given back next.
func (b *budget) state() (bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used < feedBudget {
		return false, nil
	}
	b.waiting = true
	return true, b.freed
}

func (b *budget) take(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

func (b *budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.waiting {
		b.waiting = false
		close(b.freed)
		b.freed = make(chan struct{})
	}
	b.mu.Unlock()
}

// Speed is the replay's pace (0: as fast as possible).
func (s *Source) Speed() float64 { return s.opts.Speed }

// Length is the time from the recording's start to the last record read
// so far: the recording's length once Read is closed.
func (s *Source) Length() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end
}

// Read is closed once the file has been read to its end, or to a problem
// that stopped the replay (see Err).
func (s *Source) Read() <-chan struct{} { return s.read }

// Err is the problem in the file that stopped the replay, a
// *recording.FileError; nil while there is none.
func (s *Source) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stop says where the file is cut short, once it is read to its end; nil
// when it is not.
func (s *Source) Stop() *recording.Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}

// Unstored counts the objects the recorder could not store, which the
// replay left out, once the file is read to its end.
func (s *Source) Unstored() recording.Unstored {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unstored
}

// Path is the recording's file.
func (s *Source) Path() string { return s.path }

// Finished returns nil once every recorded call and event has been served
// to the reflectors, the file's problem when one stopped the replay, or
// ctx's error.
func (s *Source) Finished(ctx context.Context) error {
	for _, lw := range s.lws {
		select {
		case <-lw.finished:
		case <-s.failed:
			return s.Err()
		case <-ctx.Done():
			return fmt.Errorf("the replay of %s had not finished: %w", s.path, ctx.Err())
		}
	}
	return s.Err()
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

// lostLocked says that the recording dropped records; "" if it did not.
func (s *Source) lostLocked() string {
	if s.dropped == 0 {
		return ""
	}
	return fmt.Sprintf("the recording lost %s when its disk fell behind, first at %s: from there the replay may differ from the live run", humanize.Plural(s.dropped, "record"), humanize.Elapsed(s.firstGap, time.Millisecond))
}

func (s *Source) notes() []string {
	h := s.header
	out := []string{fmt.Sprintf("replay of %s: %s, recorded %s by informtop %s", filepath.Base(s.path), h.Source, h.Started.Format(time.DateTime), h.Informtop)}
	s.mu.Lock()
	started, end, finished, stop, lost, unstored, err := s.started, s.end, s.finished, s.stop, s.lostLocked(), s.unstored, s.err
	s.mu.Unlock()
	pace := "as fast as possible"
	if s.opts.Speed > 0 {
		pace = fmt.Sprintf("%g× speed", s.opts.Speed)
	}
	length := humanize.Elapsed(end, time.Second)
	if !finished {
		length += " read so far"
	}
	switch {
	case started.IsZero():
	case err != nil:
		out = append(out, fmt.Sprintf("the replay stopped: %v", err))
	case s.served():
		out = append(out, fmt.Sprintf("the recording (%s) has been served, %s: the last watch stays open and silent", length, pace))
	default:
		at := time.Since(started)
		if s.opts.Speed > 0 {
			at = time.Duration(float64(at) * s.opts.Speed)
		}
		out = append(out, fmt.Sprintf("at %s of %s, %s", humanize.Elapsed(min(at, end), time.Second), length, pace))
	}
	if stop != nil {
		out = append(out, stop.Sentence(filepath.Base(s.path)))
	}
	for _, l := range []string{lost, unstored.Sentence(filepath.Base(s.path))} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
