package redact

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSecretYAMLIsRedacted(t *testing.T) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default",
			Annotations:   map[string]string{LastApplied: `{"data":{"password":"aHVudGVyMg=="}}`, "team": "db"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Data:       map[string][]byte{"password": []byte("hunter2")},
		StringData: map[string]string{"token": "abc"},
	}
	got := YAML("secrets", s)
	// apiVersion and kind come back from the scheme: the YAML can be
	// applied as it is (once the values are filled in again).
	want := `apiVersion: v1
data:
  password: <redacted, 7 bytes>
kind: Secret
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: <redacted, 36 bytes>
    team: db
  name: db
  namespace: default
stringData:
  token: <redacted, 3 bytes>
`
	if got != want {
		t.Fatalf("secret YAML:\n%s\nwant:\n%s", got, want)
	}
	for _, leak := range []string{"hunter2", "aHVudGVyMg", "abc\n", "kubectl\n"} {
		if strings.Contains(got, leak) {
			t.Fatalf("YAML leaks %q:\n%s", leak, got)
		}
	}
}

func TestUnstructuredSecretIsRedacted(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "x"},
		"data":     map[string]any{"k": "aHVudGVyMg=="},
	}}
	got := YAML("", u)
	if strings.Contains(got, "aHVudGVyMg") || !strings.Contains(got, "k: <redacted, 7 bytes>") {
		t.Fatalf("unstructured secret not redacted:\n%s", got)
	}
}

func TestOtherObjectsKeepTheirDataAndKind(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}, Data: map[string]string{"k": "v"}}
	got := YAML("configmaps", cm)
	if !strings.Contains(got, "k: v") || strings.Contains(got, "managedFields") {
		t.Fatalf("configmap YAML:\n%s", got)
	}
	if Kind(cm) != "ConfigMap" || Kind(&unstructured.Unstructured{Object: map[string]any{"kind": "Widget"}}) != "Widget" {
		t.Fatal("kindOf")
	}
}
