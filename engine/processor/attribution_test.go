package processor

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/informtop/informtop/engine/instr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
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
	p := New(Options{Informer: "pods", Sink: events.Ring, MutationAttribution: true})
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
	for _, e := range events.ofType(instr.EventCacheMutation) {
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
		s.LastCacheMutation.Callback != CallbackAdd || !slices.Equal(s.LastCacheMutation.Fields, []string{touched}) {
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
	p := New(Options{Informer: "pods", Sink: events.Ring, MutationAttribution: true})
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

	got := events.ofType(instr.EventCacheMutation)
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
	if p.attrib != nil || l.Stats().CacheMutations != 0 || len(events.ofType(instr.EventCacheMutation)) != 0 {
		t.Fatalf("attribution ran although it was not asked for")
	}
}

func TestFieldChangesAreJSONPaths(t *testing.T) {
	before := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
	}
	after := before.DeepCopy()
	after.Labels["app"] = "db"
	after.Spec.Containers[0].Image = "nginx:2"
	after.Annotations = map[string]string{"a": "1"}
	got := FieldChanges("", before, after)
	want := []string{
		`metadata.annotations.a: "" → "1"`,
		`metadata.labels.app: "web" → "db"`,
		`spec.containers[0].image: "nginx:1" → "nginx:2"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldChanges = %q, want %q", got, want)
	}
}

// A handler that writes into a cached Secret is reported without the
// secret's values: these reports reach the dashboard, events and the agent.
func TestFieldChangesOfASecretShowSizesNotValues(t *testing.T) {
	before := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"aHVudGVyMg=="}}`}},
		Data: map[string][]byte{"password": []byte("hunter2")},
	}
	after := before.DeepCopy()
	after.Data["password"] = []byte("swordfish")
	after.Data["token"] = []byte("abc")
	after.StringData = map[string]string{"extra": "abcd"} // valid base64, yet 4 bytes as written
	after.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = `{"data":{"password":"c3dvcmRmaXNo"}}`
	after.Labels = map[string]string{"touched": "yes"}
	got := FieldChanges("", before, after)
	want := []string{
		`data.password: <redacted, 7 bytes> → <redacted, 9 bytes>`,
		`data.token: "" → <redacted, 3 bytes>`,
		`metadata.annotations.kubectl.kubernetes.io/last-applied-configuration: <redacted, 36 bytes> → <redacted, 36 bytes>`,
		`metadata.labels.touched: "" → "yes"`,
		`stringData.extra: "" → <redacted, 4 bytes>`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldChanges = %q, want %q", got, want)
	}
	for _, c := range got {
		for _, secret := range []string{"hunter2", "swordfish", "aHVudGVyMg", "c3dvcmRmaXNo", "abcd", "abc\""} {
			if strings.Contains(c, secret) {
				t.Fatalf("a field change shows secret data %q: %s", secret, c)
			}
		}
	}
}
