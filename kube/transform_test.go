package kube

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
)

func appliedConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "cm",
		Annotations:   map[string]string{engine.LastAppliedAnnotation: strings.Repeat("x", 1000), "team": "blue"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: metav1.NewFieldsV1(`{"f:data":{}}`)}},
	}}
}

// --strip-last-applied drops the annotation and nothing else, managedFields
// go unless kept, and both strippings tell the memory view what they saved.
func TestTransformStrips(t *testing.T) {
	for _, c := range []struct {
		name              string
		opts              Options
		wantManaged, want bool // managedFields, last-applied kept
	}{
		{"default", Options{}, false, true},
		{"strip last-applied", Options{StripLastApplied: true}, false, false},
		{"keep managedFields, strip last-applied", Options{KeepManagedFields: true, StripLastApplied: true}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := meteredInformer(t)
			inf := local.EngineOf(e)
			tf := transform(e, c.opts)
			shared := appliedConfigMap()
			before := shared.Annotations
			out, err := tf(shared)
			if err != nil {
				t.Fatal(err)
			}
			cm := out.(*corev1.ConfigMap)
			_, hasApplied := cm.Annotations[engine.LastAppliedAnnotation]
			if hasApplied != c.want || (len(cm.ManagedFields) > 0) != c.wantManaged || cm.Annotations["team"] != "blue" {
				t.Fatalf("annotations %v, managedFields %v", cm.Annotations, cm.ManagedFields)
			}
			if _, ok := before[engine.LastAppliedAnnotation]; !ok {
				t.Fatal("the decoded object's annotations map was edited in place")
			}
			saved := inf.Snapshot().Memory.SavedByTransforms
			if _, applied := saved[source.TransformStripLastApplied]; applied == c.want {
				t.Errorf("savings %v: stripLastApplied listed %t, want %t", saved, applied, !c.want)
			}
			if _, applied := saved[source.TransformStripManagedFields]; applied == c.wantManaged {
				t.Errorf("savings %v: stripManagedFields listed %t, want %t", saved, applied, !c.wantManaged)
			}
		})
	}
}

// The meter measures what stripping removed, as serialized bytes; an
// object passing the transform twice, as a streamed list's items do, is
// measured once.
func TestTransformMetersSavings(t *testing.T) {
	e := meteredInformer(t)
	inf := local.EngineOf(e)
	tf := transform(e, Options{StripLastApplied: true})
	var objs []*corev1.ConfigMap
	for i := range 1000 {
		cm := appliedConfigMap()
		cm.ResourceVersion = strconv.Itoa(i + 1)
		objs = append(objs, cm)
	}
	for range 2 {
		for _, cm := range objs {
			if _, err := tf(cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := inf.GetStore().Add(appliedConfigMap()); err != nil { // one object cached
		t.Fatal(err)
	}
	want := float64(len(`"kubectl.kubernetes.io/last-applied-configuration":"` + strings.Repeat("x", 1000) + `",`))
	if got := inf.Snapshot().Memory.SavedByTransforms[source.TransformStripLastApplied]; got != want {
		t.Fatalf("saved %v bytes per cached object, want %v", got, want)
	}
}

// meteredInformer is a configmaps informer built as the kube source builds
// its own, never run.
func meteredInformer(t *testing.T) *local.Informer {
	t.Helper()
	e, err := local.New(local.Config{Kind: "test", Title: "test"}).NewInformer(local.InformerSpec{
		Name: "configmaps", Resource: "configmaps", ListerWatcher: &cache.ListWatch{}, Example: &corev1.ConfigMap{}, NoUpkeep: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
