package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// configMap builds an object of known size: data of dataLen bytes, a
// last-applied annotation of appliedLen bytes, managedFields of about
// managedLen bytes.
func configMap(name string, dataLen, appliedLen, managedLen int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, Labels: map[string]string{"app": "demo"},
			Annotations: map[string]string{LastAppliedAnnotation: strings.Repeat("a", appliedLen), "team": strings.Repeat("b", 200)},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:data":"` + strings.Repeat("m", managedLen) + `"}`),
			}},
		},
		Data: map[string]string{"payload": strings.Repeat("d", dataLen)},
	}
}

// trueSizes measures what each part adds to obj's serialized size: the
// size of the whole less the size without that part.
func trueSizes(t *testing.T, cm *corev1.ConfigMap) map[string]float64 {
	size := func(c *corev1.ConfigMap) float64 {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return float64(len(b))
	}
	total := size(cm)
	without := func(edit func(c *corev1.ConfigMap)) float64 {
		c := cm.DeepCopy()
		edit(c)
		return total - size(c)
	}
	return map[string]float64{
		"total":                     total,
		pipeline.FieldData:          without(func(c *corev1.ConfigMap) { c.Data = nil }),
		pipeline.FieldManagedFields: without(func(c *corev1.ConfigMap) { c.ManagedFields = nil }),
		pipeline.FieldLastApplied:   without(func(c *corev1.ConfigMap) { delete(c.Annotations, LastAppliedAnnotation) }),
		pipeline.FieldAnnotations: without(func(c *corev1.ConfigMap) {
			c.Annotations = map[string]string{LastAppliedAnnotation: c.Annotations[LastAppliedAnnotation]}
		}),
	}
}

func within(got, want, tolerance float64) bool {
	return math.Abs(got-want) <= tolerance*want
}

// Every part of an object of known size is estimated within 15 % of its
// serialized size, and the parts add up to the whole.
func TestSizeOfByField(t *testing.T) {
	cm := configMap("a", 3000, 2000, 1500)
	got, ok := sizeOf(cm)
	if !ok {
		t.Fatal("a ConfigMap could not be sized")
	}
	want := trueSizes(t, cm)
	sum := 0.0
	for _, b := range got {
		sum += b
	}
	if sum != want["total"] {
		t.Fatalf("parts add up to %v bytes, the object serializes to %v", sum, want["total"])
	}
	for _, f := range []string{pipeline.FieldData, pipeline.FieldManagedFields, pipeline.FieldLastApplied, pipeline.FieldAnnotations} {
		if !within(got[f], want[f], 0.15) {
			t.Errorf("%s: estimated %v bytes, serialized %v", f, got[f], want[f])
		}
	}
}

// The informer's estimate, from bounded samples of a store holding two
// shapes of object, comes within 15 % of the serialized sizes of the whole
// store, per field; the would-be savings of transforms that are off follow
// the fields they would remove, and an applied transform reports what its
// meter measured.
func TestMemoryEstimate(t *testing.T) {
	src := newTestSource(t)
	want := map[string]float64{}
	const n = 200
	for i := range n {
		cm := configMap(fmt.Sprintf("small-%d", i), 500, 200, 300)
		if i%2 == 1 {
			cm = configMap(fmt.Sprintf("big-%d", i), 4000, 1500, 2000)
		}
		for f, b := range trueSizes(t, cm) {
			want[f] += b
		}
		src.Add(cm)
	}
	inf := NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, Options{Name: "configmaps", Instrumentation: Instrumentation{NoUpkeep: true}})
	meter := inf.MeterTransform(pipeline.TransformStripManagedFields)
	for i := range 1000 {
		if meter.Sample(strconv.Itoa(i)) {
			meter.Removed(1000)
		}
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	// The first snapshot after sync takes a first sample itself.
	if m := inf.Snapshot().Memory; m.Sampled != memorySampleSize || m.EstimatedBytes == 0 || m.GoHeapBytes == 0 {
		t.Fatalf("first snapshot: %+v, want a first estimate and the heap", m)
	}
	for range 19 {
		inf.memoryRound()
	}
	m := inf.Snapshot().Memory
	if m.Objects != n || m.Sampled != 20*memorySampleSize {
		t.Fatalf("%d objects, %d sampled; want %d and %d", m.Objects, m.Sampled, n, 20*memorySampleSize)
	}
	// Half the objects are eight times the size of the others, the worst
	// case for a sample: the moving average weighs about seven rounds of
	// 32, so one standard deviation of the estimate is about 5 %; 20 %
	// keeps a correct estimator from failing by chance (it did at 15 %)
	// and still fails one that is off.
	const tolerance = 0.2
	if !within(m.EstimatedBytes, want["total"], tolerance) || !within(m.BytesPerObject, want["total"]/n, tolerance) {
		t.Errorf("estimated %v bytes (%v per object), serialized %v", m.EstimatedBytes, m.BytesPerObject, want["total"])
	}
	for _, f := range []string{pipeline.FieldData, pipeline.FieldLastApplied, pipeline.FieldAnnotations} {
		if !within(m.ByField[f], want[f], tolerance) {
			t.Errorf("%s: estimated %v bytes, serialized %v", f, m.ByField[f], want[f])
		}
	}
	if s, ok := m.WouldSaveByTransforms[pipeline.TransformStripLastApplied]; !ok || !within(s, want[pipeline.FieldLastApplied], tolerance) {
		t.Errorf("stripping last-applied would save %v bytes (listed: %t), want about %v", s, ok, want[pipeline.FieldLastApplied])
	}
	if s, ok := m.SavedByTransforms[pipeline.TransformStripManagedFields]; !ok || s != 1000*n {
		t.Errorf("stripping managedFields saved %v bytes (listed: %t), want %d", s, ok, 1000*n)
	}
}

// A round stops once it has encoded a megabyte: large objects cost no
// more per round than small ones.
func TestMemoryRoundBoundedInBytes(t *testing.T) {
	src := newTestSource(t)
	for i := range 10 {
		src.Add(configMap(fmt.Sprintf("huge-%d", i), 400_000, 0, 0))
	}
	inf := NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, Options{Instrumentation: Instrumentation{NoUpkeep: true}})
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	inf.sampleMemory(time.Now()) // one round, as the upkeep starts it
	if m := inf.Snapshot().Memory; m.Sampled != 3 {
		t.Fatalf("%d objects of 400 kB sized in one round, want 3 (the round ends past 1 MB)", m.Sampled)
	}
}

// The meter picks about one object in 64, by resourceVersion, and measures
// an object that passes the transform twice (a streamed list's items do)
// only once.
func TestTransformMeterSamplesEachObjectOnce(t *testing.T) {
	var m TransformMeter
	chosen := 0
	for pass := range 2 {
		for i := range 6400 {
			if m.Sample(strconv.Itoa(i)) {
				if pass == 1 {
					t.Fatalf("resourceVersion %d measured again on the second pass", i)
				}
				chosen++
			}
		}
	}
	if chosen < 50 || chosen > 150 {
		t.Fatalf("%d of 6,400 objects measured, want about 100", chosen)
	}
}

// The upkeep's first round often runs before the first list landed and
// finds the store empty: the first snapshot after sync still estimates,
// rather than reporting no estimate until the next round (5 s later; a
// --once report on a big cache came out with none).
func TestMemoryEstimateAfterAnEmptyFirstRound(t *testing.T) {
	src := newTestSource(t)
	inf := NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, Options{Name: "configmaps", Instrumentation: Instrumentation{NoUpkeep: true}})
	inf.sampleMemory(time.Now()) // the upkeep's round, on an empty store
	for i := range 50 {
		src.Add(configMap(fmt.Sprintf("cm-%d", i), 500, 0, 0))
	}
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	waitfor.True(t, "every object cached", func() bool { return len(inf.GetStore().ListKeys()) == 50 })
	if m := inf.Snapshot().Memory; m.Sampled == 0 || m.EstimatedBytes == 0 {
		t.Fatalf("first snapshot after sync: %+v; want an estimate", m)
	}
}
