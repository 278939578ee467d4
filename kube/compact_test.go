package kube

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
)

func fullPartial() *metav1.PartialObjectMetadata {
	deleted := metav1.NewTime(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC).Local())
	grace := int64(30)
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "svc-0001-config-1", GenerateName: "svc-", Namespace: "shop",
			UID: "0b7c2a8e-6c55-4e3c-9a52-3f1f2d9e8a10", ResourceVersion: "12345", Generation: 2,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 23, 9, 59, 1, 0, time.UTC).Local()),
			DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
			Labels:          map[string]string{"app.kubernetes.io/name": "svc-0001", "helm.sh/chart": "service-1.4.2"},
			Annotations:     map[string]string{"meta.helm.sh/release-name": "svc-0001"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "u"}},
			Finalizers:      []string{"example.com/keep"},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "helm", Operation: metav1.ManagedFieldsOperationApply}},
		},
	}
}

// TestCompactMetaKeepsEveryField: what the store view and handlers read
// from a compact object equals what the server sent, managedFields aside
// unless kept.
func TestCompactMetaKeepsEveryField(t *testing.T) {
	for _, keep := range []bool{false, true} {
		want := fullPartial()
		obj, err := compactTransform(keep)(fullPartial())
		if err != nil {
			t.Fatal(err)
		}
		c := obj.(*compactMeta)
		if !keep {
			want.ManagedFields = nil
		}
		if diff := cmp.Diff(want, c.toPartial()); diff != "" {
			t.Errorf("keep managedFields %v: round trip (-sent +cached):\n%s", keep, diff)
		}
		a, err := meta.Accessor(obj)
		if err != nil {
			t.Fatal(err)
		}
		if a.GetUID() != want.UID || a.GetResourceVersion() != "12345" || !a.GetCreationTimestamp().Time.Equal(want.CreationTimestamp.Time) ||
			a.GetLabels()["helm.sh/chart"] != "service-1.4.2" || a.GetFinalizers()[0] != "example.com/keep" {
			t.Errorf("accessor reads %+v", c.toPartial())
		}
		if key, err := cache.MetaNamespaceKeyFunc(obj); err != nil || key != "shop/svc-0001-config-1" {
			t.Errorf("key %q, %v", key, err)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(obj)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("JSON\n got %s\nwant %s", gotJSON, wantJSON)
		}
	}
}

// TestCompactMetaUnusualValues: a UID that is not a canonical UUID, no
// creation time, no labels: nothing is lost or invented.
func TestCompactMetaUnusualValues(t *testing.T) {
	for _, p := range []*metav1.PartialObjectMetadata{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "not-a-uuid"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", UID: "0B7C2A8E-6C55-4E3C-9A52-3F1F2D9E8A10"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: metav1.NewTime(time.Unix(0, 0))}},
		{ObjectMeta: metav1.ObjectMeta{Name: "d", Labels: map[string]string{}}},
		{},
	} {
		c := newCompactMeta(p.DeepCopy())
		got := c.toPartial()
		if got.UID != p.UID || !got.CreationTimestamp.Equal(&p.CreationTimestamp) || got.Name != p.Name || len(got.Labels) != 0 {
			t.Errorf("%+v became %+v", p.ObjectMeta, got.ObjectMeta)
		}
	}
}

// TestCompactMetaIsolation: a handler that changes what it read, or a
// copy it made, cannot change the cached object.
func TestCompactMetaIsolation(t *testing.T) {
	c := newCompactMeta(fullPartial())
	c.GetLabels()["helm.sh/chart"] = "changed"
	c.GetFinalizers()[0] = "changed"
	c.GetOwnerReferences()[0].Name = "changed"
	*c.GetDeletionGracePeriodSeconds() = 1
	cp := c.DeepCopyObject().(*compactMeta)
	cp.SetLabels(map[string]string{"x": "y"})
	cp.SetFinalizers(nil)
	cp.SetGeneration(9)
	cp.SetGroupVersionKind(schema.GroupVersionKind{Version: "v2", Kind: "Other"})
	want := fullPartial()
	want.ManagedFields = c.toPartial().ManagedFields
	if diff := cmp.Diff(want, c.toPartial()); diff != "" {
		t.Errorf("cached object changed (-want +got):\n%s", diff)
	}
	if cp.GetLabels()["x"] != "y" || cp.GetGeneration() != 9 || cp.GetFinalizers() != nil || cp.GroupVersionKind().Kind != "Other" {
		t.Errorf("copy did not take its changes: %+v", cp.toPartial())
	}
}

// TestCompactMetaSecretRedacted: a metadata-only Secret applied with
// kubectl carries its data in the last-applied annotation; the store view
// must not show it.
func TestCompactMetaSecretRedacted(t *testing.T) {
	p := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "db", Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"aHVudGVyMg=="}}`}}}
	y := redact.YAML("secrets", newCompactMeta(p))
	if strings.Contains(y, "aHVudGVyMg") || !strings.Contains(y, "redacted") || !strings.Contains(y, "kind: Secret") {
		t.Errorf("store view shows:\n%s", y)
	}
}
