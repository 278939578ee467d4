package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// expiringLW lists one pod; its first watch ends with a 410 Gone ERROR
// event, as an API server says a resourceVersion was compacted away.
type expiringLW struct {
	mu      sync.Mutex
	watches []*watch.FakeWatcher
}

func (*expiringLW) IsWatchListSemanticsUnSupported() bool { return true }

func (*expiringLW) List(metav1.ListOptions) (runtime.Object, error) {
	p := pod("a")
	p.ResourceVersion = "5"
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.Pod{*p}}, nil
}

func (lw *expiringLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	w := watch.NewFakeWithChanSize(1, false)
	if len(lw.watches) == 0 {
		w.Error(&apierrors.NewResourceExpired("too old resource version: 5 (9)").ErrStatus)
	}
	lw.watches = append(lw.watches, w)
	return w, nil
}

func (lw *expiringLW) stopAll() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for _, w := range lw.watches {
		w.Stop()
	}
}

// With TapWatchStreams the 410 the reflector handles silently is counted
// and shown; the relist it causes is counted either way.
func TestObservedWatchCounts410(t *testing.T) {
	for _, tap := range []bool{true, false} {
		t.Run(fmt.Sprintf("tap=%t", tap), func(t *testing.T) {
			t.Parallel() // each waits out the reflector's backoff before its relist
			lw := &expiringLW{}
			inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Name: "pods", Instrumentation: Instrumentation{TapWatchStreams: tap}})
			stop := runInformer(t, inf)
			waitfor.True(t, "the relist after 410", func() bool { return inf.Snapshot().Reflector.Relists == 1 })
			r := inf.Snapshot().Reflector
			stop()
			lw.stopAll()
			if r.Lists != 2 || r.Relists != 1 {
				t.Errorf("lists %d, relists %d; want 2 and 1", r.Lists, r.Relists)
			}
			if tap && (r.WatchErrors != 1 || r.Errors != 1 || !strings.Contains(r.LastError, "410 Gone") || !strings.Contains(r.LastError, "too old resource version")) {
				t.Errorf("with the tap: watch errors %d, errors %d, last error %q; want the one 410 recorded", r.WatchErrors, r.Errors, r.LastError)
			}
			if !tap && (r.WatchErrors != 0 || r.Errors != 0 || r.LastError != "") {
				t.Errorf("without the tap: watch errors %d, errors %d, last error %q; want none (the stream is not inspected)", r.WatchErrors, r.Errors, r.LastError)
			}
		})
	}
}

// scriptedLW answers List calls from a script, in order, and hands out
// fake watches.
type scriptedLW struct {
	lists []listReply
}

type listReply struct {
	items int
	cont  string
	err   error
}

func (lw *scriptedLW) List(metav1.ListOptions) (runtime.Object, error) {
	r := lw.lists[0]
	lw.lists = lw.lists[1:]
	if r.err != nil {
		return nil, r.err
	}
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: r.cont}}
	for i := range r.items {
		l.Items = append(l.Items, *pod(fmt.Sprint("p", i)))
	}
	return l, nil
}

func (lw *scriptedLW) Watch(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil }

// listCounts are the list counters of ReflectorStats a test follows.
type listCounts struct {
	Lists, Relists, ListPages, ListedItems uint64
	LastListItems                          int
	ListInProgress, ListStreamed           bool
	Errors                                 uint64
}

func listCountsOf(r ReflectorStats) listCounts {
	return listCounts{r.Lists, r.Relists, r.ListPages, r.ListedItems, r.LastListItems, r.ListInProgress, r.ListStreamed, r.Errors}
}

func eventsOfType(ring *instr.Ring, typ instr.EventType) []instr.Event {
	var out []instr.Event
	for _, ev := range ring.Recent(-1) {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// The observer counts every LIST attempt, but only the first list after a
// completed one is a relist: retries of a failed list, the pager's full
// list after an expired continue token and a LIST replacing a failed
// streamed list belong to the list (or relist) they retry.
func TestObserverCountsListsAndRelists(t *testing.T) {
	ctx := context.Background()
	refused := errors.New("dial tcp 10.0.0.1:443: connect: connection refused")
	lw := &scriptedLW{lists: []listReply{
		{err: refused},         // the first list fails; the reflector retries
		{items: 2, cont: "c1"}, // the retry's first page
		{err: apierrors.NewResourceExpired("the continue token is too old")}, // the pager then lists in full
		{items: 3},
		{err: refused}, // a relist fails...
		{items: 3},     // ...and its retry succeeds
		{items: 1},     // the LIST a failed streamed list falls back to
	}}
	ring := instr.NewRing(256)
	o := instr.NewObservedListerWatcher(lw, "pods", ring)
	list := func(cont string) {
		_, _ = o.ListWithContext(ctx, metav1.ListOptions{Continue: cont})
	}
	stream := func() watch.Interface {
		t.Helper()
		w, err := o.WatchWithContext(ctx, metav1.ListOptions{SendInitialEvents: ptrTo(true)})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	expect := func(step string, want listCounts) {
		t.Helper()
		if got := listCountsOf(o.Stats(time.Now())); got != want {
			t.Fatalf("%s:\n got %+v\nwant %+v", step, got, want)
		}
	}

	list("")
	expect("failed first list", listCounts{Lists: 1, Errors: 1})
	list("")
	expect("first page of the retry", listCounts{Lists: 2, ListPages: 1, ListedItems: 2, LastListItems: 2, ListInProgress: true, Errors: 1})
	list("c1")
	list("")
	expect("full list after the expired continue token", listCounts{Lists: 3, ListPages: 2, ListedItems: 5, LastListItems: 3, Errors: 2})
	list("")
	list("")
	expect("relist and its retry", listCounts{Lists: 5, Relists: 1, ListPages: 3, ListedItems: 8, LastListItems: 3, Errors: 3})

	w := stream()
	expect("streamed relist under way", listCounts{Lists: 6, Relists: 2, ListPages: 3, ListedItems: 8, ListInProgress: true, ListStreamed: true, Errors: 3})
	w.Stop() // the stream failed before its bookmark
	list("")
	o.Replaced(1) // the queue's Replace for that LIST
	expect("LIST after the failed stream", listCounts{Lists: 7, Relists: 2, ListPages: 4, ListedItems: 9, LastListItems: 1, Errors: 3})

	w = stream()
	o.Replaced(4) // the initial-events bookmark arrived
	expect("streamed relist", listCounts{Lists: 8, Relists: 3, ListPages: 4, ListedItems: 13, LastListItems: 4, ListStreamed: true, Errors: 3})
	var done []string
	for _, ev := range eventsOfType(ring, pipeline.EventListDone) {
		done = append(done, fmt.Sprintf("%d %s", ev.Count, ev.Detail))
	}
	if want := []string{"3 7", "3 7", "1 7", "4 streamed"}; !reflect.DeepEqual(done, want) {
		t.Fatalf("ListDone events %q, want %q", done, want)
	}
	if n := len(eventsOfType(ring, pipeline.EventRelist)); n != 3 {
		t.Fatalf("%d Relist events, want 3", n)
	}

	// The streamed watch carries on as the watch: its events and its close.
	o.StoreCall(watch.Added, pod("a"))
	o.StoreCall(watch.Modified, pod("a"))
	o.Bookmarked()
	if r := o.Stats(time.Now()); !r.WatchOpen || r.Watches != 2 || r.WatchEvents != 3 || r.WatchAdded != 1 || r.WatchModified != 1 || r.WatchBookmarks != 1 {
		t.Fatalf("open watch: %+v", r)
	}
	w.Stop()
	w.Stop() // the reflector may stop a stream twice; it closes once
	if r := o.Stats(time.Now()); r.WatchOpen || !r.WatchSince.IsZero() {
		t.Fatalf("after the last stream stopped: open %t since %v", r.WatchOpen, r.WatchSince)
	}
	var closes []int
	for _, ev := range eventsOfType(ring, pipeline.EventWatchClose) {
		closes = append(closes, ev.Count)
	}
	if want := []int{0, 3}; !reflect.DeepEqual(closes, want) {
		t.Fatalf("WatchClose event counts %v, want %v", closes, want)
	}

	// The reflector hands a failed call's error to the watch error handler
	// wrapped; it was counted when the call failed.
	o.WatchFailed(fmt.Errorf("failed to list pods: %w", refused))
	expect("a reported call error", listCounts{Lists: 8, Relists: 3, ListPages: 4, ListedItems: 13, LastListItems: 4, ListStreamed: true, Errors: 3})
	o.WatchFailed(errors.New("unable to sync list result: no room"))
	if r := o.Stats(time.Now()); r.Errors != 4 || r.LastError != "list and watch: unable to sync list result: no room" {
		t.Fatalf("an error only the handler saw: errors %d, last %q", r.Errors, r.LastError)
	}
}
