package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestWritesRejectObjectsOfAnotherType(t *testing.T) {
	c := New(Options{Seed: 36})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	key := c.Keys(Pods)[0]
	ns, name, _ := cutKey(key)
	rv := c.ResourceVersion()
	for _, obj := range []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		nil,
		(*corev1.Pod)(nil),
	} {
		if _, err := c.UpdateObject(Pods, obj); err == nil {
			t.Errorf("UpdateObject(pods, %T) succeeded", obj)
		}
		if _, err := c.Create(Pods, obj); err == nil {
			t.Errorf("Create(pods, %T) succeeded", obj)
		}
	}
	if c.ResourceVersion() != rv || c.Stats().Writes != 3 {
		t.Fatalf("a rejected write was committed: resourceVersion %d (was %d), %d writes", c.ResourceVersion(), rv, c.Stats().Writes)
	}
	// The pods are still all pods: listing them works.
	if items, _ := mustList(t, mustLW(t, c, Pods, Selector{}), metav1.ListOptions{}); len(items) != 3 {
		t.Fatalf("listed %d pods, want 3", len(items))
	}
}
