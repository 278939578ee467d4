package replay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/recording"
)

// listerWatcher serves one informer's recorded calls to its reflector,
// from a feed the Source fills as it reads the file: a List or Watch call
// and, after a watch that opened, its stream's events and close.
type listerWatcher struct {
	src       *Source
	informer  string
	clock     *clock
	watchList bool
	// typed is the kind of the informer's objects when they are served
	// typed (see recording.Reader.Kind). nil: unstructured.
	typed *schema.GroupVersionKind

	mu      sync.Mutex
	feed    queue // what waits to be served
	calls   int   // List and Watch calls among it
	ended   bool  // nothing more will be added
	waiting bool  // a taker waits for more
	more    chan struct{}
	// skipped counts recorded calls the reflector did not make.
	skipped int
	// listed: the recording holds a complete list for this informer, so
	// its replay can sync; initial: the last watch call streams an
	// initial list, which its bookmark completes.
	listed, initial bool
	// sentRV is the resourceVersion of the last page or event the
	// reflector took: once the informer stands there, it has all of it.
	sentRV   string
	streams  int           // watch streams still being served
	finished chan struct{} // closed once everything recorded was served
	done     bool
}

func newListerWatcher(src *Source, informer string, watchList bool) *listerWatcher {
	return &listerWatcher{src: src, informer: informer, clock: src.clock, watchList: watchList,
		more: make(chan struct{}), finished: make(chan struct{})}
}

var _ cache.ListerWatcherWithContext = (*listerWatcher)(nil)

// IsWatchListSemanticsUnSupported answers as the recorded ListerWatcher did.
func (lw *listerWatcher) IsWatchListSemanticsUnSupported() bool { return !lw.watchList }

// add appends a record read from the file.
func (lw *listerWatcher) add(r recording.Record) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	switch r.Kind {
	case recording.KindList:
		lw.calls++
		lw.initial = false
		lw.listed = lw.listed || (r.Err == nil && r.Continue == "")
	case recording.KindWatch:
		lw.calls++
		o := r.Options
		lw.initial = r.Err == nil && o != nil && o.SendInitialEvents != nil && *o.SendInitialEvents
	case recording.KindEvent:
		lw.listed = lw.listed || (lw.initial && r.Type == string(watch.Bookmark))
	case recording.KindClose:
		lw.initial = false
	}
	lw.feed.push(r)
	if lw.waiting {
		lw.wakeLocked()
	}
}

// closeFeed says nothing more will be added.
func (lw *listerWatcher) closeFeed() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.ended = true
	lw.wakeLocked()
	lw.checkDoneLocked()
}

func (lw *listerWatcher) wakeLocked() {
	lw.waiting = false
	close(lw.more)
	lw.more = make(chan struct{})
}

// pending is how many records wait to be served.
func (lw *listerWatcher) pending() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.feed.len()
}

// popLocked takes the next record off the feed; its bytes are given back
// to the read-ahead budget by the caller, once unlocked.
func (lw *listerWatcher) popLocked() recording.Record {
	r := lw.feed.pop()
	if r.Kind == recording.KindList || r.Kind == recording.KindWatch {
		lw.calls--
	}
	return r
}

// queue is a FIFO of records in blocks, so that a long one is neither
// copied as it grows nor kept whole once served.
type queue struct {
	blocks [][]recording.Record
	head   int // the next record is blocks[0][head]
	n      int
}

const queueBlock = 256

func (q *queue) len() int { return q.n }

func (q *queue) push(r recording.Record) {
	if len(q.blocks) == 0 || len(q.blocks[len(q.blocks)-1]) == queueBlock {
		q.blocks = append(q.blocks, make([]recording.Record, 0, queueBlock))
	}
	last := &q.blocks[len(q.blocks)-1]
	*last = append(*last, r)
	q.n++
}

// peek is the next record; the queue must not be empty.
func (q *queue) peek() *recording.Record { return &q.blocks[0][q.head] }

func (q *queue) pop() recording.Record {
	b := q.blocks[0]
	r := b[q.head]
	b[q.head] = recording.Record{} // its objects are the reflector's now
	q.head++
	q.n--
	if q.head == len(b) {
		q.head = 0
		if len(q.blocks) == 1 {
			q.blocks[0] = b[:0]
		} else {
			q.blocks[0] = nil
			q.blocks = q.blocks[1:]
		}
	}
	return r
}

// take returns the next recorded call of the kind asked for, waiting for
// the file to be read that far. When the reflector asks for another kind
// than was recorded next (the replay went another way), the calls before
// the next one of its kind are skipped and that is logged; so are the
// events of a stream the reflector stopped. nil when no call of that kind
// is left, or ctx ended.
func (lw *listerWatcher) take(ctx context.Context, kind recording.Kind) *recording.Record {
	skipped, first := 0, recording.Kind("")
	defer func() {
		if skipped > 0 {
			lw.src.LogError(fmt.Sprintf("replay of %s: the reflector asked for a %s where the recording has a %s next; skipped %d recorded calls", lw.informer, kind, first, skipped))
		}
	}()
	for {
		var freed int64
		lw.mu.Lock()
		for lw.feed.len() > 0 {
			r := lw.popLocked()
			freed += r.Size
			switch r.Kind {
			case kind:
				lw.skipped += skipped
				if kind == recording.KindWatch && r.Err == nil {
					lw.streams++
				}
				lw.checkDoneLocked()
				lw.mu.Unlock()
				lw.src.budget.give(freed)
				return &r
			case recording.KindList, recording.KindWatch:
				if skipped == 0 {
					first = r.Kind
				}
				skipped++
			}
		}
		lw.skipped += skipped
		ended, more := lw.ended, lw.more
		lw.waiting = true
		lw.checkDoneLocked()
		lw.mu.Unlock()
		lw.src.budget.give(freed)
		if ended {
			return nil
		}
		select {
		case <-more:
		case <-ctx.Done():
			return nil
		}
	}
}

// What streamNext found.
const (
	streamEvent   = iota // an event of the stream, taken
	streamClosed         // its close, taken
	streamEnded          // the next record is another call, or there is none: the stream ended open
	streamStopped        // the reflector stopped the stream
)

// streamNext takes the next record of the watch stream being served,
// waiting for the file to be read that far.
func (lw *listerWatcher) streamNext(stop <-chan struct{}) (recording.Record, int) {
	for {
		lw.mu.Lock()
		if lw.feed.len() > 0 {
			switch lw.feed.peek().Kind {
			case recording.KindEvent, recording.KindClose:
				r := lw.popLocked()
				lw.mu.Unlock()
				lw.src.budget.give(r.Size)
				if r.Kind == recording.KindClose {
					return r, streamClosed
				}
				return r, streamEvent
			}
			lw.mu.Unlock()
			return recording.Record{}, streamEnded
		}
		ended, more := lw.ended, lw.more
		lw.waiting = true
		lw.mu.Unlock()
		if ended {
			return recording.Record{}, streamEnded
		}
		select {
		case <-more:
		case <-stop:
			return recording.Record{}, streamStopped
		}
	}
}

func (lw *listerWatcher) sent(rv string) {
	if rv == "" {
		return
	}
	lw.mu.Lock()
	lw.sentRV = rv
	lw.mu.Unlock()
}

// lastSent is the resourceVersion of the last page or event taken.
func (lw *listerWatcher) lastSent() string {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.sentRV
}

// canSync reports whether the recording holds a complete list.
func (lw *listerWatcher) canSync() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.listed
}

func (lw *listerWatcher) streamDone() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.streams--
	lw.checkDoneLocked()
}

// checkDoneLocked closes finished once the file is read, every recorded
// call was taken and every stream served; events of streams the reflector
// stopped may be left.
func (lw *listerWatcher) checkDoneLocked() {
	if !lw.done && lw.ended && lw.calls == 0 && lw.streams == 0 {
		lw.done = true
		close(lw.finished)
	}
}

func (lw *listerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), options)
}

func (lw *listerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), options)
}

func (lw *listerWatcher) ListWithContext(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	c := lw.take(ctx, recording.KindList)
	if c == nil {
		// The recording is over: the reflector waits here until it stops.
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if !lw.clock.wait(ctx, nil, c.T) {
		return nil, ctx.Err()
	}
	if c.Err != nil {
		return nil, failure(c.Err)
	}
	lw.sent(c.RV)
	if lw.typed != nil {
		return lw.typedPage(*c)
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}}
	list.SetResourceVersion(c.RV)
	list.SetContinue(c.Continue)
	items := c.Decoded()
	list.Items = make([]unstructured.Unstructured, 0, len(items))
	for _, obj := range items {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			list.Items = append(list.Items, *u)
		}
	}
	return list, nil
}

func (lw *listerWatcher) WatchWithContext(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	c := lw.take(ctx, recording.KindWatch)
	if c == nil {
		return newStream(lw, nil), nil // used up: an open, silent watch
	}
	if !lw.clock.wait(ctx, nil, c.T) {
		if c.Err == nil {
			lw.streamDone()
		}
		return nil, ctx.Err()
	}
	if c.Err != nil {
		return nil, failure(c.Err)
	}
	return newStream(lw, c), nil
}

// failure rebuilds a recorded error: the server's status when there was one.
func failure(f *recording.Failure) error {
	if f.Status != nil {
		st := *f.Status
		st.Message = shown(st.Message)
		return &apierrors.StatusError{ErrStatus: st}
	}
	if f.Refused {
		return refused{shown(f.Message)}
	}
	return errors.New(shown(f.Message))
}

// shown is a message from the file as the dashboard may show it: quoted
// when it holds control characters, which could drive the terminal.
func shown(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }) {
		return strconv.Quote(s)
	}
	return s
}

// refused is a recorded refused connection: it reads as recorded and is
// recognised as ECONNREFUSED, as the reflector checks.
type refused struct{ msg string }

func (r refused) Error() string { return r.msg }
func (r refused) Unwrap() error { return syscall.ECONNREFUSED }

// stream serves one recorded watch stream.
type stream struct {
	lw   *listerWatcher
	out  chan watch.Event
	stop chan struct{}
	once sync.Once

	// What the reflector counts to tell a broken watch (see closeAt), from
	// the watch call or, in a stream of initial events, from their end:
	// since when (recorded, and here), with what margin, and how many
	// events it took since.
	sinceT  int64
	since   time.Time
	margin  time.Duration
	taken   int
	initial bool // initial events stream until their end's bookmark
}

// shortWatch is client-go's reflector's line between a broken watch and
// an ended one: a watch the server ends sooner after the reflector began
// counting, without an event, makes it relist (VeryShortWatchError); a
// longer one it opens again.
const shortWatch = time.Second

// initialEndMargin: after the bookmark ending a stream's initial events
// the reflector hands the list to its queue before it counts the stream
// anew; an empty rest of the stream is held this much more, so that the
// reflector counts shortWatch at least.
const initialEndMargin = time.Second

// newStream serves the stream c opened; c nil: a silent one.
func newStream(lw *listerWatcher, c *recording.Record) *stream {
	s := &stream{lw: lw, out: make(chan watch.Event), stop: make(chan struct{})}
	if c != nil {
		// After the reflector's watch call began: it counts from before.
		s.sinceT, s.since = c.T, time.Now()
		o := c.Options
		s.initial = o != nil && o.SendInitialEvents != nil && *o.SendInitialEvents
		go s.serve()
	}
	return s
}

// closeAt is when to end the stream as the server did at recorded time t:
// when t is due, unless the reflector took no event since it began
// counting. Then the live reflector relisted if the stream ended within
// shortWatch, and opened another watch if not, so the replay ends it on
// the same side of that line whatever its speed: no sooner than
// shortWatch after the count began when the live stream lasted longer
// (replayed as fast as possible, a watch that the server ended after
// minutes of silence would otherwise end at once), no later than it
// lasted when it was shorter (replayed slower than recorded).
func (s *stream) closeAt(t int64) time.Time {
	due := s.lw.clock.when(t)
	if s.taken > 0 {
		return due
	}
	lasted := time.Duration(t - s.sinceT)
	if lasted >= shortWatch {
		if held := s.since.Add(shortWatch + s.margin); due.Before(held) {
			return held
		}
		return due
	}
	if cut := s.since.Add(lasted); !due.IsZero() && cut.Before(due) {
		return cut
	}
	return due
}

// took counts an event the reflector took; the bookmark ending the
// initial events begins its count anew.
func (s *stream) took(r recording.Record, obj runtime.Object) {
	s.taken++
	if !s.initial || r.Type != string(watch.Bookmark) {
		return
	}
	if acc, err := meta.Accessor(obj); err == nil && acc.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
		s.initial = false
		s.sinceT, s.since, s.margin, s.taken = r.T, time.Now(), initialEndMargin, 0
	}
}

func (s *stream) ResultChan() <-chan watch.Event { return s.out }

func (s *stream) Stop() { s.once.Do(func() { close(s.stop) }) }

func (s *stream) serve() {
	ctx := context.Background()
	served := false
	defer func() {
		if !served {
			s.lw.streamDone()
		}
	}()
	for {
		r, what := s.lw.streamNext(s.stop)
		switch what {
		case streamStopped:
			return
		case streamClosed:
			if r.By == "server" {
				if until(ctx, s.stop, s.closeAt(r.T)) {
					close(s.out)
				}
				return
			}
		}
		if what != streamEvent {
			// The reflector stopped this stream (or the recording ended with
			// it open): everything is served; wait for the reflector's Stop.
			served = true
			s.lw.streamDone()
			<-s.stop
			return
		}
		if !s.lw.clock.wait(ctx, s.stop, r.T) {
			return
		}
		obj := r.Decoded()[0]
		if st, ok := obj.(*metav1.Status); ok {
			st.Message = shown(st.Message)
		}
		select {
		case s.out <- watch.Event{Type: watch.EventType(r.Type), Object: obj}:
			s.took(r, obj)
			if acc, err := meta.Accessor(obj); err == nil && r.Type != string(watch.Error) {
				s.lw.sent(acc.GetResourceVersion())
			}
		case <-s.stop:
			return
		}
	}
}

// exampleObject is what the informer's reflector expects.
func (lw *listerWatcher) exampleObject() runtime.Object {
	if lw.typed == nil {
		return &unstructured.Unstructured{}
	}
	obj, err := scheme.Scheme.New(*lw.typed)
	if err != nil { // the reader checked it
		return &unstructured.Unstructured{}
	}
	return obj
}
