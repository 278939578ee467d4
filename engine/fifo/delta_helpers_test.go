package fifo

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// dfTestObj is a minimal metav1.Object. Tests compare objects by pointer,
// so every version of an object is a distinct value.
type dfTestObj struct {
	metav1.ObjectMeta
	Val int
	// twin is what dfTestTransform turns this object into; a twin is its
	// own twin, which keeps the transform idempotent.
	twin *dfTestObj
}

// dfObj returns object ns/name at version val, with a transformed twin.
func dfObj(name string, val int) *dfTestObj {
	o := &dfTestObj{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Val: val}
	o.twin = &dfTestObj{ObjectMeta: o.ObjectMeta, Val: -val}
	o.twin.twin = o.twin
	return o
}

func (o *dfTestObj) String() string {
	if o == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s/%s#%d", o.Namespace, o.Name, o.Val)
}

func dfKey(name string) string { return "ns/" + name }

func dfTomb(name string, obj interface{}) cache.DeletedFinalStateUnknown {
	return cache.DeletedFinalStateUnknown{Key: dfKey(name), Obj: obj}
}

// dfTestTransform maps test objects to their twins and leaves anything
// else alone.
func dfTestTransform(obj interface{}) (interface{}, error) {
	if o, ok := obj.(*dfTestObj); ok {
		return o.twin, nil
	}
	return obj, nil
}

// dfKnown is a knownObjects store with a deterministic (sorted) ListKeys,
// so that both queues of a differential test see the same key order.
// failKeys makes GetByKey fail for those keys.
type dfKnown struct {
	objs     map[string]interface{}
	failKeys map[string]bool
}

func dfNewKnown(objs ...*dfTestObj) *dfKnown {
	k := &dfKnown{objs: map[string]interface{}{}, failKeys: map[string]bool{}}
	for _, o := range objs {
		k.objs[dfKey(o.Name)] = o
	}
	return k
}

func (k *dfKnown) ListKeys() []string {
	keys := make([]string, 0, len(k.objs))
	for key := range k.objs {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

func (k *dfKnown) GetByKey(key string) (interface{}, bool, error) {
	if k.failKeys[key] {
		return nil, false, errors.New("injected lookup failure")
	}
	obj, ok := k.objs[key]
	return obj, ok, nil
}

// apply does to the store what an informer's delta handler does to its
// indexer: deletes remove the key, every other delta stores the object.
func (k *dfKnown) apply(ds cache.Deltas) {
	for _, d := range ds {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if err != nil {
			panic(err)
		}
		if d.Type == cache.Deleted {
			delete(k.objs, key)
		} else {
			k.objs[key] = d.Object
		}
	}
}

// dfFormat renders deltas compactly for failure messages.
func dfFormat(ds cache.Deltas) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s(%s)", d.Type, dfFormatObj(d.Object))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func dfFormatObj(obj interface{}) string {
	switch o := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone %s of %s", o.Key, dfFormatObj(o.Obj))
	case nil:
		return "nil"
	default:
		return fmt.Sprint(o)
	}
}

// dfAssertDeltas requires got to be a cache.Deltas equal to want: same
// types and the very same objects (== compares pointers by address and
// tombstones field by field).
func dfAssertDeltas(t testing.TB, what string, got interface{}, want cache.Deltas) {
	t.Helper()
	ds, ok := got.(cache.Deltas)
	if !ok {
		t.Fatalf("%s: got %T (%v), want cache.Deltas", what, got, got)
	}
	if !slices.Equal(ds, want) {
		t.Fatalf("%s:\n got  %s\n want %s", what, dfFormat(ds), dfFormat(want))
	}
}

func dfAssertKeys(t testing.TB, q interface{ ListKeys() []string }, want ...string) {
	t.Helper()
	if got := q.ListKeys(); !slices.Equal(got, want) {
		t.Fatalf("ListKeys = %q, want %q", got, want)
	}
}

// dfPopped is what one Pop handed to its process function.
type dfPopped struct {
	deltas  cache.Deltas
	initial bool
}

// dfRequireQueued fails the test when f is open and empty, where a pop
// would block the test forever instead of failing it.
func dfRequireQueued(t testing.TB, f *DeltaFIFO) {
	t.Helper()
	if f.Stats(0).Depth == 0 && !f.IsClosed() {
		t.Fatal("the queue is empty: popping it would block the test forever")
	}
}

// dfPop pops one row from a queue that must not be empty.
func dfPop(t testing.TB, f *DeltaFIFO) dfPopped {
	t.Helper()
	if f.Stats(0).Depth == 0 {
		t.Fatal("dfPop on an empty queue")
	}
	var p dfPopped
	item, err := f.Pop(func(obj interface{}, initial bool) error {
		p = dfPopped{deltas: obj.(cache.Deltas), initial: initial}
		return nil
	})
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	if !slices.Equal(item.(cache.Deltas), p.deltas) {
		t.Fatalf("Pop returned %s but processed %s", dfFormat(item.(cache.Deltas)), dfFormat(p.deltas))
	}
	return p
}

// dfRefQueue copies the key order and rows of client-go's DeltaFIFO.
func dfRefQueue(t testing.TB, f *cache.DeltaFIFO) ([]string, map[string]cache.Deltas) {
	t.Helper()
	queue := refField(t, f, "queue", reflect.TypeFor[[]string]()).Interface().([]string)
	items := refField(t, f, "items", reflect.TypeFor[map[string]cache.Deltas]()).Interface().(map[string]cache.Deltas)
	rows := make(map[string]cache.Deltas, len(items))
	for k, ds := range items {
		rows[k] = slices.Clone(ds)
	}
	return slices.Clone(queue), rows
}

// dfPair drives our DeltaFIFO and client-go's with the same options and
// operations. Each queue has its own knownObjects store, fed by its own
// pops the way an informer feeds its indexer, so the stores stay equal
// exactly as long as the popped items do.
type dfPair struct {
	ours                *DeltaFIFO
	refq                *cache.DeltaFIFO
	knownOurs, knownRef *dfKnown // nil when the queues have no knownObjects
}

// dfNewPair builds the pair; seed objects start out in both known stores.
func dfNewPair(emitReplaced, withKnown, transform bool, seed ...*dfTestObj) *dfPair {
	p := &dfPair{}
	optsFor := func(k *dfKnown) cache.DeltaFIFOOptions {
		quiet := logr.Discard() // lookup failures are expected, not news
		o := cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: emitReplaced, Logger: &quiet}
		if k != nil {
			o.KnownObjects = k
		}
		if transform {
			o.Transformer = dfTestTransform
		}
		return o
	}
	if withKnown {
		p.knownOurs, p.knownRef = dfNewKnown(seed...), dfNewKnown(seed...)
	}
	p.ours = NewDeltaFIFO(optsFor(p.knownOurs))
	p.refq = cache.NewDeltaFIFOWithOptions(optsFor(p.knownRef))
	return p
}

// do applies op to both queues and requires the same error (or none).
func (p *dfPair) do(t testing.TB, what string, op func(q cache.Queue) error) {
	t.Helper()
	errOurs, errRef := op(p.ours), op(p.refq)
	if fmt.Sprint(errOurs) != fmt.Sprint(errRef) {
		t.Fatalf("%s: ours returned %v, client-go returned %v", what, errOurs, errRef)
	}
	p.check(t, what)
}

// pop pops from both queues (the caller knows they are not empty, or that
// they are closed) and requires identical items, flags and errors.
// procErr is what the process function returns.
func (p *dfPair) pop(t testing.TB, what string, procErr error) {
	t.Helper()
	popOne := func(q cache.Queue, known *dfKnown) (dfPopped, interface{}, error) {
		var got dfPopped
		item, err := q.Pop(func(obj interface{}, initial bool) error {
			got = dfPopped{deltas: obj.(cache.Deltas), initial: initial}
			if known != nil {
				known.apply(got.deltas)
			}
			return procErr
		})
		return got, item, err
	}
	gotOurs, itemOurs, errOurs := popOne(p.ours, p.knownOurs)
	gotRef, itemRef, errRef := popOne(p.refq, p.knownRef)
	if fmt.Sprint(errOurs) != fmt.Sprint(errRef) {
		t.Fatalf("%s: Pop error: ours %v, client-go %v", what, errOurs, errRef)
	}
	if (itemOurs == nil) != (itemRef == nil) {
		t.Fatalf("%s: Pop item: ours %v, client-go %v", what, itemOurs, itemRef)
	}
	if itemOurs != nil && !slices.Equal(itemOurs.(cache.Deltas), itemRef.(cache.Deltas)) {
		t.Fatalf("%s: popped\n ours     %s\n client-go %s", what, dfFormat(itemOurs.(cache.Deltas)), dfFormat(itemRef.(cache.Deltas)))
	}
	if gotOurs.initial != gotRef.initial || !slices.Equal(gotOurs.deltas, gotRef.deltas) {
		t.Fatalf("%s: processed\n ours      %s initial=%v\n client-go %s initial=%v", what,
			dfFormat(gotOurs.deltas), gotOurs.initial, dfFormat(gotRef.deltas), gotRef.initial)
	}
	p.check(t, what)
}

// check compares the queues' key order, every row, the sync and close
// state and the known stores.
func (p *dfPair) check(t testing.TB, what string) {
	t.Helper()
	refKeys, refRows := dfRefQueue(t, p.refq)
	if got := p.ours.ListKeys(); !slices.Equal(got, refKeys) {
		t.Fatalf("%s: ListKeys: ours %q, client-go %q", what, got, refKeys)
	}
	for _, k := range refKeys {
		if got := p.ours.Deltas(k); !slices.Equal(got, refRows[k]) {
			t.Fatalf("%s: deltas of %s:\n ours      %s\n client-go %s", what, k, dfFormat(got), dfFormat(refRows[k]))
		}
	}
	if len(refRows) != len(refKeys) {
		t.Fatalf("%s: client-go holds %d rows for %d keys", what, len(refRows), len(refKeys))
	}
	if a, b := p.ours.HasSynced(), p.refq.HasSynced(); a != b {
		t.Fatalf("%s: HasSynced: ours %v, client-go %v", what, a, b)
	}
	if a, b := p.ours.IsClosed(), p.refq.IsClosed(); a != b {
		t.Fatalf("%s: IsClosed: ours %v, client-go %v", what, a, b)
	}
	if p.knownOurs != nil && !maps.Equal(p.knownOurs.objs, p.knownRef.objs) {
		t.Fatalf("%s: known stores diverged: ours %v, client-go %v", what, p.knownOurs.objs, p.knownRef.objs)
	}
}
