package redact

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// appliedSecret is what kubectl apply leaves in a Secret's annotation.
const appliedSecret = `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"name":"db","namespace":"shop"},"stringData":{"token":"s3cr3t-plain"}}`

// secretValues are the values of appliedSecret, as any output could carry
// them.
var secretValues = []string{"aHVudGVyMg", "hunter2", "s3cr3t-plain"}

func assertNoSecret(t *testing.T, where, out string) {
	t.Helper()
	for _, v := range secretValues {
		if strings.Contains(out, v) {
			t.Fatalf("%s shows the secret value %q:\n%s", where, v, out)
		}
	}
}

func metadataOnlySecret(annotations map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", Annotations: annotations, Labels: map[string]string{"app": "shop"}},
	}
}

// A metadata-only informer of secrets holds PartialObjectMetadata: its
// last-applied annotation carries the whole Secret. The resource decides.
func TestMetadataOnlySecretIsRedactedByItsResource(t *testing.T) {
	obj := metadataOnlySecret(map[string]string{LastApplied: appliedSecret, "kapp.k14s.io/original": `{"stringData":{"token":"s3cr3t-plain"}}`, "team": "db"})
	for _, resource := range []string{"secrets", ""} {
		got := YAML(resource, obj)
		assertNoSecret(t, "YAML of "+resource, got)
		if !strings.Contains(got, "team: db") || !strings.Contains(got, "app: shop") {
			t.Fatalf("resource %q: the rest of the metadata should stay:\n%s", resource, got)
		}
	}
	got := YAML("secrets", obj)
	if !strings.Contains(got, "kapp.k14s.io/original: <redacted, ") {
		t.Fatalf("kapp's copy of the Secret should be redacted on a secret resource:\n%s", got)
	}
}

// A resource the user names is redacted whole but for its metadata,
// whatever its kind, and text naming only its kind is redacted once the
// policy knows the kind.
func TestNamedResourceIsRedactedWhole(t *testing.T) {
	p, err := NewPolicy([]string{"SealedSecrets.bitnami.com"}, []string{"example.com/original"})
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "bitnami.com/v1alpha1", "kind": "SealedSecret",
		"metadata": map[string]any{"name": "s", "annotations": map[string]any{"example.com/original": `{"spec":"hunter2"}`}},
		"spec":     map[string]any{"encryptedData": map[string]any{"password": "aHVudGVyMg=="}},
	}}
	got := p.YAML("sealedsecrets.bitnami.com", u)
	assertNoSecret(t, "a sealed secret", got)
	if !strings.Contains(got, "kind: SealedSecret") || !strings.Contains(got, "name: s") {
		t.Fatalf("the object's names should stay:\n%s", got)
	}
	if p.Secret("configmaps", u) {
		t.Fatal("a kind the policy was not told of is not secret on another resource")
	}
	if !p.WithKinds("SealedSecret").Secret("", u) {
		t.Fatal("a kind the policy was told of is secret wherever it is held")
	}
}

// Other objects keep their whole-object annotation: it copies nothing
// secret, and users read it.
func TestConfigMapKeepsItsLastApplied(t *testing.T) {
	applied := `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap"}`
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{LastApplied: applied}}}
	if got := YAML("configmaps", cm); !strings.Contains(got, `"kind":"ConfigMap"`) {
		t.Fatalf("a ConfigMap's last-applied should stay:\n%s", got)
	}
	if Current().Needed("configmaps", cm) {
		t.Fatal("a ConfigMap needs no redaction")
	}
	// An unreadable copy on an object of unknown resource may be a
	// Secret's: hidden.
	cm.Annotations["objectset.rio.cattle.io/applied"] = "H4sIAAAAAAAA/6pWSs7PS8tMBQA="
	if got := YAML("", cm); strings.Contains(got, "H4sI") {
		t.Fatalf("an unreadable whole-object copy of an unknown resource should be hidden:\n%s", got)
	}
	if got := YAML("configmaps", cm); !strings.Contains(got, "H4sI") {
		t.Fatalf("on a known, non-secret resource it stays:\n%s", got)
	}
}

func TestHidePath(t *testing.T) {
	p := Current()
	for _, c := range []struct {
		secret     bool
		kind, path string
		hide       bool
	}{
		{false, "Pod", "metadata.labels.app", false},
		{false, "Pod", "metadata.annotations." + LastApplied, true},
		{true, "PartialObjectMetadata", "metadata.annotations." + LastApplied, true},
		{true, "PartialObjectMetadata", "metadata.annotations.team", false},
		{true, "Secret", "data.password", true},
		{true, "Secret", "type", false},
		{true, "SealedSecret", "spec.encryptedData.password", true},
		{true, "SealedSecret", "spec.template[0].x", true},
	} {
		if got := p.HidePath(c.secret, c.kind, c.path); got != c.hide {
			t.Errorf("HidePath(%v, %s, %s) = %v, want %v", c.secret, c.kind, c.path, got, c.hide)
		}
	}
}

func TestBodyOfALoggedListIsRedacted(t *testing.T) {
	p := Current()
	list := `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"db"},"data":{"password":"aHVudGVyMg=="},"type":"Opaque"}]}`
	got := p.Body(list)
	assertNoSecret(t, "a logged SecretList", got)
	if !strings.Contains(got, `"password":"\u003credacted, 7 bytes\u003e"`) && !strings.Contains(got, `<redacted, 7 bytes>`) {
		t.Fatalf("the list should stay readable, values by size: %s", got)
	}
	meta := `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","items":[{"kind":"PartialObjectMetadata","metadata":{"name":"db","annotations":{"kubectl.kubernetes.io/last-applied-configuration":` + quote(appliedSecret) + `}}}]}`
	assertNoSecret(t, "a logged metadata list", p.Body(meta))
	// client-go cuts bodies at -v 8 and 9: a cut body that names a Secret
	// cannot be redacted field by field, so none of it is logged.
	cut := list[:70] + " [truncated 80 chars]"
	assertNoSecret(t, "a cut SecretList", p.Body(cut))
	cutMeta := meta[:200]
	assertNoSecret(t, "a cut metadata list", p.Body(cutMeta))
	pods := `{"kind":"PodList","items":[{"metadata":{"name":"p"}`
	if p.Body(pods) != pods {
		t.Fatalf("a cut body naming nothing secret stays: %s", p.Body(pods))
	}
	hex := "00000000  6b 38 73 00 0a 0c 0a 02  76 31 12 06 53 65 63 72  |k8s.....v1..Secr|"
	if got := p.Body(hex); strings.Contains(got, "Secr") {
		t.Fatalf("a hex dump of protobuf is not logged: %s", got)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestNewPolicyRefusesWhatIsNotAName(t *testing.T) {
	if _, err := NewPolicy([]string{"secrets/x"}, nil); err == nil {
		t.Fatal("a resource with a slash should be refused")
	}
	if _, err := NewPolicy(nil, []string{"a b"}); err == nil {
		t.Fatal("an annotation with a space should be refused")
	}
}
