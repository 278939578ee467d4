package fifo

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// rfPod is a pod in namespace "ns"; its resourceVersion tells versions apart
// in expected sequences.
func rfPod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

const rfTransformLabel = "rf-transformed"

var errRfTransform = errors.New("rf: transform refused")

// rfTransform copies a pod and bumps a label counter, so a double transform
// shows up as "t2" in rfDesc. Pods labelled rf-bad are refused.
func rfTransform(obj interface{}) (interface{}, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	if p.Labels["rf-bad"] != "" {
		return nil, errRfTransform
	}
	c := p.DeepCopy()
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	c.Labels[rfTransformLabel] += "t"
	return c, nil
}

// rfDesc renders a delta compactly: "Added ns/a@1", "Added ns/a@1+t",
// "Deleted tomb(ns/a ns/a@2)", "ReplacedAll 10[ns/a@1]", "SyncAll", "Bookmark 5".
func rfDesc(d cache.Delta) string {
	return string(d.Type) + " " + rfDescObj(d.Object)
}

func rfDescObj(obj interface{}) string {
	switch o := obj.(type) {
	case *corev1.Pod:
		s := o.Namespace + "/" + o.Name + "@" + o.ResourceVersion
		if t := o.Labels[rfTransformLabel]; t != "" {
			s += "+" + t
		}
		return s
	case cache.DeletedFinalStateUnknown:
		return "tomb(" + o.Key + " " + rfDescObj(o.Obj) + ")"
	case cache.ReplacedAllInfo:
		parts := make([]string, len(o.Objects))
		for i, x := range o.Objects {
			parts[i] = rfDescObj(x)
		}
		return o.ResourceVersion + "[" + strings.Join(parts, " ") + "]"
	case cache.SyncAllInfo:
		return ""
	case cache.BookmarkInfo:
		return o.ResourceVersion
	case nil:
		return "nil"
	default:
		return fmt.Sprintf("%T(%v)", obj, obj)
	}
}

func rfDescAll(ds []cache.Delta) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = strings.TrimSuffix(rfDesc(d), " ")
	}
	return out
}

func rfEqual(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// rfKnown is a KeyListerGetter with sorted ListKeys, so tombstone and Sync
// order is deterministic. ghosts are keys it lists without an object.
type rfKnown struct {
	mu     sync.Mutex
	objs   map[string]interface{}
	ghosts map[string]bool
}

func rfNewKnown(objs ...*corev1.Pod) *rfKnown {
	k := &rfKnown{objs: map[string]interface{}{}, ghosts: map[string]bool{}}
	for _, o := range objs {
		k.objs[o.Namespace+"/"+o.Name] = o
	}
	return k
}

func (k *rfKnown) ListKeys() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	keys := make([]string, 0, len(k.objs)+len(k.ghosts))
	for key := range k.objs {
		keys = append(keys, key)
	}
	for key := range k.ghosts {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func (k *rfKnown) GetByKey(key string) (interface{}, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	o, ok := k.objs[key]
	return o, ok, nil
}

// apply updates the store the way an informer's HandleDeltas would.
func (k *rfKnown) apply(d cache.Delta) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch d.Type {
	case cache.ReplacedAll:
		k.objs = map[string]interface{}{}
		for _, o := range d.Object.(cache.ReplacedAllInfo).Objects {
			if key, err := cache.MetaNamespaceKeyFunc(o); err == nil {
				k.objs[key] = o
			}
		}
	case cache.SyncAll, cache.Bookmark:
	case cache.Deleted:
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object); err == nil {
			delete(k.objs, key)
		}
	default:
		if key, err := cache.MetaNamespaceKeyFunc(d.Object); err == nil {
			k.objs[key] = d.Object
		}
	}
}

// rfPopped is one hand-over from a queue to its consumer.
type rfPopped struct {
	Via     string // "pop", "single" (PopBatch's processSingle) or "batch"
	Initial bool
	Deltas  []string
}

func (p rfPopped) String() string {
	return fmt.Sprintf("%s initial=%v %q", p.Via, p.Initial, p.Deltas)
}

// rfConsumer pops from a queue, records what it was handed and applies it
// to known (if not nil).
type rfConsumer struct {
	got   []rfPopped
	known *rfKnown
	check func(via string, initial bool, ds []cache.Delta) // optional invariant check
}

func (c *rfConsumer) record(via string, initial bool, ds []cache.Delta) {
	if c.check != nil {
		c.check(via, initial, ds)
	}
	c.got = append(c.got, rfPopped{Via: via, Initial: initial, Deltas: rfDescAll(ds)})
	if c.known != nil {
		for _, d := range ds {
			c.known.apply(d)
		}
	}
}

func (c *rfConsumer) single(via string) cache.PopProcessFunc {
	return func(obj interface{}, initial bool) error {
		c.record(via, initial, obj.(cache.Deltas))
		return nil
	}
}

func (c *rfConsumer) batch(ds []cache.Delta, initial bool) error {
	c.record("batch", initial, ds)
	return nil
}

func (c *rfConsumer) pop(q cache.Queue) error {
	_, err := q.Pop(c.single("pop"))
	return err
}

func (c *rfConsumer) popBatch(q cache.QueueWithBatch) error {
	return q.PopBatch(c.batch, c.single("single"))
}

func (c *rfConsumer) take() []rfPopped {
	got := c.got
	c.got = nil
	return got
}

// rfLen is the number of queued items; the caller must be the only user.
func (f *RealFIFO) rfLen() int {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.items.len()
}

// rfRequireQueued fails the test when f is open and empty, where a pop
// would block the test forever instead of failing it.
func rfRequireQueued(t testing.TB, f *RealFIFO) {
	t.Helper()
	if f.rfLen() == 0 && !f.IsClosed() {
		t.Fatal("the queue is empty: popping it would block the test forever")
	}
}

// rfQueued describes our queue's contents.
func (f *RealFIFO) rfQueued() []string {
	f.lock.Lock()
	defer f.lock.Unlock()
	ds := make([]cache.Delta, f.items.len())
	for i := range ds {
		ds[i] = f.items.at(i).delta
	}
	return rfDescAll(ds)
}

// rfRefQueued describes client-go's queue contents.
func rfRefQueued(t testing.TB, ref *cache.RealFIFO) []string {
	return rfDescAll(rfRefItems(t, ref))
}

func rfRefItems(t testing.TB, ref *cache.RealFIFO) []cache.Delta {
	return refField(t, ref, "items", reflect.TypeFor[[]cache.Delta]()).Interface().([]cache.Delta)
}

func rfRefInitialCount(t testing.TB, ref *cache.RealFIFO) int {
	return int(refField(t, ref, "initialPopulationCount", reflect.TypeFor[int]()).Int())
}

func rfSetRefBatchSize(t testing.TB, ref *cache.RealFIFO, n int) {
	refField(t, ref, "batchSize", reflect.TypeFor[int]()).SetInt(int64(n))
}
