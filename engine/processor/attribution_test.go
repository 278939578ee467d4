package processor

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/redact"
)

const touched = `metadata.labels.touched: "" → "yes"`

// TestAttributionNamesOnlyTheMutatingListener runs two listeners over the
// same objects: one sets a label on every third object it receives, the
// other DeepCopies each object and changes its copy. Only the first is
// named, with exactly the objects it changed and the field.
//
// The handlers are ordered so no two touch the same object at once (that
// would be a data race in the handlers themselves): the copier starts
// object i+1 only after the mutator has started object i+2, so the
// mutator is done with i+1, attribution check included.
func TestAttributionNamesOnlyTheMutatingListener(t *testing.T) {
	const n = 9
	started := make([]chan struct{}, n)
	for i := range started {
		started[i] = make(chan struct{})
	}
	index := func(o any) int {
		var i int
		fmt.Sscanf(o.(*metav1.PartialObjectMetadata).Name, "o%d", &i)
		return i
	}
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring, MutationAttribution: true, DescribeMutation: fieldChanges})
	mutator := p.NewListener(ListenerConfig{Name: "mutator", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			i := index(o)
			close(started[i])
			if i%3 == 1 {
				o.(*metav1.PartialObjectMetadata).Labels = map[string]string{"touched": "yes"}
			}
		}}})
	copier := p.NewListener(ListenerConfig{Name: "copier", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			i := index(o)
			mine := o.(*metav1.PartialObjectMetadata).DeepCopy()
			mine.Labels = map[string]string{"copied": "yes"}
			if i+2 < n {
				<-started[i+2]
			}
		}}})
	p.AddListener(mutator, nil)
	p.AddListener(copier, nil)
	run(t, p)
	for i := range n {
		p.Distribute(add(obj(fmt.Sprintf("o%d", i), "1"), false), false)
	}
	delivered(t, mutator, n)
	delivered(t, copier, n)

	var keys []string
	for _, e := range events.ofType(pipeline.EventCacheMutation) {
		if e.Listener != "mutator" || !strings.HasSuffix(e.Detail, touched) || !e.Lifecycle() {
			t.Fatalf("event %+v: want a lifecycle event (kept longer) naming mutator, its detail ending in %q", e, touched)
		}
		keys = append(keys, e.Key)
	}
	if want := []string{"ns/o1", "ns/o4", "ns/o7"}; !slices.Equal(keys, want) {
		t.Fatalf("cache mutation events for %q, want %q", keys, want)
	}
	s := mutator.Stats()
	if s.CacheMutations != 3 || s.LastCacheMutation == nil || s.LastCacheMutation.Key != "ns/o7" ||
		s.LastCacheMutation.Callback != pipeline.CallbackAdd || !slices.Equal(s.LastCacheMutation.Fields, []string{touched}) {
		t.Fatalf("mutator: %d mutations, last %+v; want 3, last ns/o7 OnAdd [%s]", s.CacheMutations, s.LastCacheMutation, touched)
	}
	if c := copier.Stats(); c.CacheMutations != 0 || c.LastCacheMutation != nil {
		t.Fatalf("copier, which only changes its own copies, was charged: %d, %+v", c.CacheMutations, c.LastCacheMutation)
	}
}

// TestAttributionRefusesToGuessWhenCallbacksOverlap changes an object while
// two listeners are both inside a callback on it: the change is reported,
// but neither listener is named or counted.
func TestAttributionRefusesToGuessWhenCallbacksOverlap(t *testing.T) {
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring, MutationAttribution: true, DescribeMutation: fieldChanges})
	bystanderIn, mutated := make(chan struct{}), make(chan struct{})
	mutator := p.NewListener(ListenerConfig{Name: "mutator", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			<-bystanderIn
			o.(*metav1.PartialObjectMetadata).Labels = map[string]string{"touched": "yes"}
			close(mutated)
		}}})
	bystander := p.NewListener(ListenerConfig{Name: "bystander", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) {
			close(bystanderIn)
			<-mutated
		}}})
	p.AddListener(mutator, nil)
	p.AddListener(bystander, nil)
	run(t, p)
	p.Distribute(add(obj("shared", "1"), false), false)
	delivered(t, mutator, 1)
	delivered(t, bystander, 1)

	got := events.ofType(pipeline.EventCacheMutation)
	if len(got) != 1 || got[0].Listener != "" || got[0].Key != "ns/shared" ||
		!strings.Contains(got[0].Detail, "no handler is named") || !strings.HasSuffix(got[0].Detail, touched) {
		t.Fatalf("events %+v: want one unattributed report for ns/shared ending in %q", got, touched)
	}
	for _, l := range []*Listener{mutator, bystander} {
		if s := l.Stats(); s.CacheMutations != 0 || s.LastCacheMutation != nil {
			t.Fatalf("%s was charged with an ambiguous change: %+v", l.Name(), s)
		}
	}
}

// TestAttributionIsOffByDefault: without the option nothing is copied,
// counted or reported, even for a handler that mutates.
func TestAttributionIsOffByDefault(t *testing.T) {
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring})
	l := p.NewListener(ListenerConfig{Name: "mutator", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			o.(*metav1.PartialObjectMetadata).Labels = map[string]string{"touched": "yes"}
		}}})
	p.AddListener(l, nil)
	run(t, p)
	p.Distribute(add(obj("a", "1"), false), false)
	delivered(t, l, 1)
	if p.attrib != nil || l.Stats().CacheMutations != 0 || len(events.ofType(pipeline.EventCacheMutation)) != 0 {
		t.Fatalf("attribution ran although it was not asked for")
	}
}

// fieldChanges lists changed fields as the dashboard's sources do.
func fieldChanges(before, after any) []string { return redact.FieldChanges("", before, after) }

// Without a describer the change is still charged to the listener, with
// the changed paths but no value: the engine cannot tell what is secret.
func TestAttributionWithoutADescriberNamesPathsOnly(t *testing.T) {
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring, MutationAttribution: true})
	l := p.NewListener(ListenerConfig{Name: "mutator", Handler: cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			o.(*metav1.PartialObjectMetadata).Labels = map[string]string{"touched": "yes"}
		}}})
	p.AddListener(l, nil)
	run(t, p)
	p.Distribute(add(obj("p", "1"), false), false)
	delivered(t, l, 1)
	want := "metadata.labels.touched (value not shown)"
	if m := l.Stats().LastCacheMutation; m == nil || !slices.Equal(m.Fields, []string{want}) || m.Key != "ns/p" {
		t.Fatalf("last mutation %+v, want ns/p with %q", m, want)
	}
	evs := events.ofType(pipeline.EventCacheMutation)
	if len(evs) != 1 || !strings.HasSuffix(evs[0].Detail, want) || strings.Contains(evs[0].Detail, "yes") {
		t.Fatalf("mutation events %+v, want one naming the path and not the value", evs)
	}
}
