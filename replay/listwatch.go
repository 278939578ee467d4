package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall"

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

// call is one recorded List or Watch call and, for a watch that opened,
// the stream it got.
type call struct {
	rec    recording.Record
	events []recording.Record
	// closedBy is "server" when the server ended the stream (the replay
	// ends it too), "client" or "" when the reflector stopped it or the
	// recording ended with it open.
	closedBy string
	closedAt int64
}

// calls groups one informer's records into calls, in order.
func calls(recs []recording.Record, informer string) []*call {
	var out []*call
	var open *call
	for _, r := range recs {
		if r.Informer != informer {
			continue
		}
		switch r.Kind {
		case recording.KindList:
			open = nil
			out = append(out, &call{rec: r})
		case recording.KindWatch:
			c := &call{rec: r}
			out = append(out, c)
			open = nil
			if r.Err == nil {
				open = c
			}
		case recording.KindEvent:
			if open != nil {
				open.events = append(open.events, r)
			}
		case recording.KindClose:
			if open != nil {
				open.closedBy, open.closedAt = r.By, r.T
				open = nil
			}
		}
	}
	return out
}

// listerWatcher serves one informer's recorded calls to its reflector.
type listerWatcher struct {
	informer  string
	clock     *clock
	watchList bool
	// typed is the kind of every recorded object when they are protobuf
	// of one kind (see typedKind): they are served typed. nil: unstructured.
	typed *schema.GroupVersionKind

	mu       sync.Mutex
	calls    []*call
	next     int
	skipped  int          // recorded calls the reflector did not make
	diverged func(string) // told when calls are skipped
	// listed: the recording holds a complete list for this informer, so
	// its replay can sync.
	listed bool
	// sentRV is the resourceVersion of the last page or event the
	// reflector took: once the informer stands there, it has all of it.
	sentRV   string
	streams  int           // watch streams still being served
	finished chan struct{} // closed once everything recorded was served
	done     bool
}

func newListerWatcher(informer string, cs []*call, c *clock, watchList bool) *listerWatcher {
	lw := &listerWatcher{informer: informer, clock: c, calls: cs, watchList: watchList, finished: make(chan struct{}), listed: listed(cs)}
	if gvk, ok := typedKind(cs); ok {
		lw.typed = &gvk
	}
	lw.checkDoneLocked()
	return lw
}

var _ cache.ListerWatcherWithContext = (*listerWatcher)(nil)

// IsWatchListSemanticsUnSupported answers as the recorded ListerWatcher did.
func (lw *listerWatcher) IsWatchListSemanticsUnSupported() bool { return !lw.watchList }

// take returns the next recorded call of the kind asked for. When the
// reflector asks for another kind than was recorded next (the replay
// went another way), the calls before the next one of its kind are
// skipped and that is logged; nil when no call of that kind is left.
func (lw *listerWatcher) take(kind recording.Kind) *call {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for j := lw.next; j < len(lw.calls); j++ {
		c := lw.calls[j]
		if c.rec.Kind != kind {
			continue
		}
		if skipped := j - lw.next; skipped > 0 {
			lw.skipped += skipped
			if lw.diverged != nil {
				lw.diverged(fmt.Sprintf("replay of %s: the reflector asked for a %s where the recording has a %s next; skipped %d recorded calls", lw.informer, kind, lw.calls[lw.next].rec.Kind, skipped))
			}
		}
		lw.next = j + 1
		if kind == recording.KindWatch && c.rec.Err == nil {
			lw.streams++
		}
		lw.checkDoneLocked()
		return c
	}
	return nil
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

func (lw *listerWatcher) streamDone() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.streams--
	lw.checkDoneLocked()
}

func (lw *listerWatcher) checkDoneLocked() {
	if !lw.done && lw.next >= len(lw.calls) && lw.streams == 0 {
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
	c := lw.take(recording.KindList)
	if c == nil {
		// The recording is over: the reflector waits here until it stops.
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if !lw.clock.wait(ctx, nil, c.rec.T) {
		return nil, ctx.Err()
	}
	if c.rec.Err != nil {
		return nil, failure(c.rec.Err)
	}
	lw.sent(c.rec.RV)
	if lw.typed != nil {
		list, err := lw.typedPage(c.rec)
		if err != nil {
			// Read checked the records but not every object's bytes.
			lw.undecodable(c.rec, err)
			list, _ = scheme.Scheme.New(listKind(*lw.typed))
		}
		return list, nil
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}}
	list.SetResourceVersion(c.rec.RV)
	list.SetContinue(c.rec.Continue)
	items, err := c.rec.Objects()
	if err != nil {
		// Read checked the records but not every object's bytes: serve
		// the page without its items rather than stop the replay.
		lw.undecodable(c.rec, err)
		items = nil
	}
	list.Items = make([]unstructured.Unstructured, 0, len(items))
	for _, m := range items {
		list.Items = append(list.Items, unstructured.Unstructured{Object: m})
	}
	return list, nil
}

func (lw *listerWatcher) WatchWithContext(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	c := lw.take(recording.KindWatch)
	if c == nil {
		return newStream(lw, nil), nil // used up: an open, silent watch
	}
	if !lw.clock.wait(ctx, nil, c.rec.T) {
		if c.rec.Err == nil {
			lw.streamDone()
		}
		return nil, ctx.Err()
	}
	if c.rec.Err != nil {
		return nil, failure(c.rec.Err)
	}
	return newStream(lw, c), nil
}

// failure rebuilds a recorded error: the server's status when there was one.
func failure(f *recording.Failure) error {
	if f.Status != nil {
		return &apierrors.StatusError{ErrStatus: *f.Status}
	}
	if f.Refused {
		return refused{f.Message}
	}
	return errors.New(f.Message)
}

// refused is a recorded refused connection: it reads as recorded and is
// recognised as ECONNREFUSED, as the reflector checks.
type refused struct{ msg string }

func (r refused) Error() string { return r.msg }
func (r refused) Unwrap() error { return syscall.ECONNREFUSED }

// stream serves one recorded watch stream.
type stream struct {
	lw   *listerWatcher
	c    *call
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

func newStream(lw *listerWatcher, c *call) *stream {
	s := &stream{lw: lw, c: c, out: make(chan watch.Event), stop: make(chan struct{})}
	if c != nil {
		go s.serve()
	}
	return s
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
	for _, ev := range s.c.events {
		if !s.lw.clock.wait(ctx, s.stop, ev.T) {
			return
		}
		obj, err := s.lw.decodeEventObject(ev)
		if err != nil {
			s.lw.undecodable(ev, err)
		}
		select {
		case s.out <- watch.Event{Type: watch.EventType(ev.Type), Object: obj}:
			if acc, err := meta.Accessor(obj); err == nil && ev.Type != string(watch.Error) {
				s.lw.sent(acc.GetResourceVersion())
			}
		case <-s.stop:
			return
		}
	}
	if s.c.closedBy != "server" {
		// The reflector stopped this stream (or the recording ended with it
		// open): everything is served; wait for the reflector's Stop.
		served = true
		s.lw.streamDone()
		<-s.stop
		return
	}
	if s.lw.clock.wait(ctx, s.stop, s.c.closedAt) {
		close(s.out)
	}
}

// decodeEventObject is the event's object: a Status for an ERROR event,
// else typed or unstructured as the informer is served; an empty one when
// it does not decode (err says why).
func (lw *listerWatcher) decodeEventObject(ev recording.Record) (runtime.Object, error) {
	if ev.Type == string(watch.Error) {
		st := &metav1.Status{}
		if err := json.Unmarshal(ev.Object, st); err == nil {
			return st, nil
		}
	}
	if lw.typed != nil {
		objs, err := ev.TypedObjects()
		if err != nil || len(objs) != 1 {
			return lw.exampleObject(), err
		}
		return objs[0], nil
	}
	objs, err := ev.Objects()
	if err != nil || len(objs) != 1 || objs[0] == nil {
		return &unstructured.Unstructured{Object: map[string]any{}}, err
	}
	return &unstructured.Unstructured{Object: objs[0]}, nil
}

// undecodable tells the user of a recorded object the replay cannot serve.
func (lw *listerWatcher) undecodable(r recording.Record, err error) {
	if lw.diverged != nil {
		lw.diverged(fmt.Sprintf("replay of %s: a recorded %s at %s does not decode and is served empty: %v", lw.informer, r.Kind, r.At(), err))
	}
}

// listed reports whether cs hold a complete list: a last LIST page, or a
// streamed initial list that reached its closing bookmark.
func listed(cs []*call) bool {
	for _, c := range cs {
		if c.rec.Err != nil {
			continue
		}
		switch c.rec.Kind {
		case recording.KindList:
			if c.rec.Continue == "" {
				return true
			}
		case recording.KindWatch:
			if o := c.rec.Options; o != nil && o.SendInitialEvents != nil && *o.SendInitialEvents {
				for _, ev := range c.events {
					if ev.Type == string(watch.Bookmark) {
						return true
					}
				}
			}
		}
	}
	return false
}
