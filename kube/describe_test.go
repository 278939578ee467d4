package kube

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
)

// d on a real API server reads as kubectl describe: a pod with its
// events, a custom resource through the generic describer, a Secret with
// the size of each value and never the value; an
// object carrying a copy of a Secret is not described; pods list their
// containers for l.
func TestDescribeIsKubectls(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p1"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "migrate", Image: "busybox"}},
		Containers:     []corev1.Container{{Name: "app", Image: "busybox"}, {Name: "sidecar", Image: "busybox"}}}}
	created, err := cs.CoreV1().Pods(ns).Create(bg, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p1.tested"}, Reason: "Tested", Message: "described by the test", Type: "Normal",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p1", UID: created.UID, APIVersion: "v1"},
		Source:         corev1.EventSource{Component: "informtop-test"}, FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1}
	if _, err := cs.CoreV1().Events(ns).Create(bg, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Data: map[string][]byte{"password": []byte("hunter2"), "user": []byte("admin")}}
	if _, err := cs.CoreV1().Secrets(ns).Create(bg, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applied, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "copy"}, "data": map[string]any{"password": "aHVudGVyMg=="}})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copy", Annotations: map[string]string{redact.LastApplied: string(applied)}},
		Data: map[string]string{"note": "hunter2"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	gadgets(t, c, ns, map[string]any{"metadata": map[string]any{"name": "g1"}, "spec": map[string]any{"size": 3, "colour": "teal"}})

	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"pods", "secrets", "configmaps", "gadgets"}}, true)
	ctl := s.Controls()
	if ctl.Describe == nil || ctl.Logs == nil {
		t.Fatal("the kube source offers no describe or logs")
	}
	waitfor.Within(t, waitFor, "the objects cached", func() (bool, string) {
		_, p := s.cachedVersion("pods", ns+"/p1")
		_, sc := s.cachedVersion("secrets", ns+"/db")
		_, cmOK := s.cachedVersion("configmaps", ns+"/copy")
		_, g := s.cachedVersion("gadgets.tables.example.com", ns+"/g1")
		return p && sc && cmOK && g, ""
	})

	text, err := ctl.Describe.Describe(bg, "pods", ns+"/p1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Name:", "p1", "Namespace:", ns, "Init Containers:", "migrate:", "app:", "sidecar:", "Events:", "Tested", "described by the test"} {
		if !strings.Contains(text, want) {
			t.Errorf("describe pods/p1 lacks %q:\n%s", want, text)
		}
	}

	// A custom resource: kubectl's generic describer.
	text, err = ctl.Describe.Describe(bg, "gadgets.tables.example.com", ns+"/g1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Name:", "g1", "Kind:", "Gadget", "Spec:", "Colour:", "teal"} {
		if !strings.Contains(text, want) {
			t.Errorf("describe gadgets/g1 lacks %q:\n%s", want, text)
		}
	}

	text, err = ctl.Describe.Describe(bg, "secrets", ns+"/db")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "password:  7 bytes") || !strings.Contains(text, "user:      5 bytes") {
		t.Errorf("describe secrets/db does not give the sizes as kubectl does:\n%s", text)
	}
	for _, leak := range []string{"hunter2", "aHVudGVy", "admin", "YWRtaW4"} {
		if strings.Contains(text, leak) {
			t.Errorf("describe secrets/db shows a value (%s):\n%s", leak, text)
		}
	}

	if text, err := ctl.Describe.Describe(bg, "configmaps", ns+"/copy"); err == nil || strings.Contains(text, "hunter2") || !strings.Contains(err.Error(), "copy of a Secret") {
		t.Errorf("a ConfigMap copying a Secret was described (%v):\n%s", err, text)
	}
	if _, err := ctl.Describe.Describe(bg, "pods", ns+"/absent"); err == nil || !strings.Contains(err.Error(), "not in the cache") {
		t.Errorf("an object not cached: %v", err)
	}

	names, err := ctl.Logs.Containers(bg, ns, "p1")
	if err != nil || strings.Join(names, ",") != "migrate,app,sidecar" {
		t.Errorf("containers %q (%v), want migrate,app,sidecar", names, err)
	}
}
