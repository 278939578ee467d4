package recording

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/internal/wirekeep"
)

// Tee returns a ListerWatcher that serves what lw serves and hands a copy
// of every call, page, watch event and close to w, as the named informer's.
// Objects the API has a protobuf form for are encoded here, before the
// reflector gets them (it and transforms may change them in place later):
// that is cheaper than a deep copy. The rest (what a view would redact,
// unstructured objects) are deep-copied and encoded as JSON on w's
// goroutine.
//
// When lw's client keeps the bytes it decodes (wirekeep.Source), watch
// events are stored from those bytes instead, on w's goroutine: the tee
// then costs the reflector's stream next to nothing.
func Tee(lw cache.ListerWatcher, informer string, w *Writer) cache.ListerWatcher {
	t := &tee{orig: lw, inner: cache.ToListerWatcherWithContext(lw), informer: informer, w: w}
	if s, ok := lw.(wirekeep.Source); ok && s.WireKeeper() != nil {
		t.keeper = s.WireKeeper()
		t.keeper.Arm()
	}
	return t
}

// WatchListAllowed reports whether lw lets the reflector stream initial
// lists, as client-go asks it; a replay must answer the same.
func WatchListAllowed(lw cache.ListerWatcher) bool {
	s, ok := lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return !ok || !s.IsWatchListSemanticsUnSupported()
}

type tee struct {
	orig     cache.ListerWatcher
	inner    cache.ListerWatcherWithContext
	informer string
	w        *Writer
	keeper   *wirekeep.Keeper // nil unless lw's client keeps its bytes
}

var _ cache.ListerWatcherWithContext = (*tee)(nil)

// IsWatchListSemanticsUnSupported answers as the wrapped ListerWatcher.
func (t *tee) IsWatchListSemanticsUnSupported() bool { return !WatchListAllowed(t.orig) }

func (t *tee) List(options metav1.ListOptions) (runtime.Object, error) {
	return t.ListWithContext(context.Background(), options)
}

func (t *tee) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return t.WatchWithContext(context.Background(), options)
}

func (t *tee) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	list, err := t.inner.ListWithContext(ctx, options)
	e := entry{rec: Record{T: t.w.Since(), Kind: KindList, Informer: t.informer, Options: &options}}
	if err != nil {
		if ctx.Err() != nil {
			return list, err // shutting down: not part of what happened
		}
		e.rec.Err = failureOf(err)
	} else {
		if acc, aerr := meta.ListAccessor(list); aerr == nil {
			e.rec.RV, e.rec.Continue = acc.GetResourceVersion(), acc.GetContinue()
		}
		if !protoItems(t.w.resources[t.informer], list, &e.rec) {
			e.list = list.DeepCopyObject()
		}
	}
	t.w.add(e)
	return list, err
}

func (t *tee) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if t.keeper != nil {
		t.keeper.Forget() // what an earlier stream decoded and never delivered
	}
	wi, err := t.inner.WatchWithContext(ctx, options)
	e := entry{rec: Record{T: t.w.Since(), Kind: KindWatch, Informer: t.informer, Options: &options}}
	if err != nil {
		if ctx.Err() != nil {
			return wi, err
		}
		e.rec.Err = failureOf(err)
		t.w.add(e)
		return wi, err
	}
	t.w.add(e)
	// A small buffer spares the reflector a goroutine hand-off per event.
	// Events buffered when the reflector stops the stream are recorded but
	// never received; a replay offers them and the reflector stops first,
	// just the same.
	tw := &teeWatch{inner: wi, t: t, ctx: ctx, out: make(chan watch.Event, 64), stop: make(chan struct{})}
	go tw.forward()
	return tw, nil
}

// teeWatch forwards a stream event by event, copying each to the writer
// first, so the file's order is the reflector's.
type teeWatch struct {
	inner     watch.Interface
	t         *tee
	ctx       context.Context // the reflector's: done when the informer stops
	out       chan watch.Event
	stop      chan struct{}
	stopOnce  sync.Once
	closeOnce sync.Once
}

func (tw *teeWatch) ResultChan() <-chan watch.Event { return tw.out }

func (tw *teeWatch) forward() {
	defer close(tw.out)
	in := tw.inner.ResultChan()
	for {
		select {
		case <-tw.stop:
			return
		case ev, ok := <-in:
			if !ok {
				tw.closed("server")
				return
			}
			if ev.Type == watch.Error && tw.ctx.Err() != nil {
				// The client's own error as the informer stops (context
				// canceled): not part of what the server sent.
				tw.forwardOnly(ev)
				return
			}
			e := entry{rec: Record{T: tw.t.w.Since(), Kind: KindEvent, Informer: tw.t.informer, Type: string(ev.Type)}}
			if ev.Object != nil {
				tw.t.keep(&e, ev)
			}
			tw.t.w.add(e)
			select {
			case tw.out <- ev:
			case <-tw.stop:
				return
			}
		}
	}
}

// forwardOnly hands ev to the reflector unless it stopped the stream.
func (tw *teeWatch) forwardOnly(ev watch.Event) {
	select {
	case tw.out <- ev:
	case <-tw.stop:
	}
}

// keep puts ev's object into e in the cheapest form at hand: the bytes it
// came in, else protobuf encoded here, else a deep copy for the writer to
// encode as JSON. An ERROR event's Status always takes the last way.
func (t *tee) keep(e *entry, ev watch.Event) {
	var wire []byte
	if t.keeper != nil {
		wire, _ = t.keeper.Take(ev.Object)
	}
	if ev.Type == watch.Error {
		e.obj = ev.Object.DeepCopyObject()
		return
	}
	if wire != nil {
		e.wire = wire
		return
	}
	if kind, b, ok := protoOf(t.w.resources[t.informer], ev.Object); ok {
		e.rec.ProtoKind, e.rec.Proto = kind, [][]byte{b}
		return
	}
	e.obj = ev.Object.DeepCopyObject()
}

func (tw *teeWatch) closed(by string) {
	tw.closeOnce.Do(func() {
		tw.t.w.add(entry{rec: Record{T: tw.t.w.Since(), Kind: KindClose, Informer: tw.t.informer, By: by}})
	})
}

func (tw *teeWatch) Stop() {
	tw.stopOnce.Do(func() {
		tw.closed("client")
		close(tw.stop)
		tw.inner.Stop()
	})
}

// protoItems encodes a page's items into r as protobuf when every one has
// that form and they are of one kind; false leaves r as it was.
func protoItems(resource string, list runtime.Object, r *Record) bool {
	items, err := meta.ExtractList(list)
	if err != nil {
		return false
	}
	if len(items) == 0 {
		return true
	}
	out := make([][]byte, len(items))
	kind := ""
	for i, it := range items {
		k, b, ok := protoOf(resource, it)
		if !ok || (kind != "" && k != kind) {
			return false
		}
		kind, out[i] = k, b
	}
	r.ProtoKind, r.Proto = kind, out
	return true
}
