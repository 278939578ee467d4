package redact

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// configMapCopying is a ConfigMap whose last-applied annotation holds
// applied: what kubectl leaves when a Secret of the same name was applied
// over it, or any JSON whose kind is Secret.
func configMapCopying(applied string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop",
		Annotations: map[string]string{LastApplied: applied, "team": "db"}},
		Data: map[string]string{"password": "s3cr3t-plain"}}
}

// An object whose whole-object annotation copies a Secret is secret by
// every output's decision, whatever its resource: the YAML, the writers'
// fast-path test, the mutation report and a logged body agree.
func TestACopyOfASecretMakesAnyObjectSecret(t *testing.T) {
	p := Current()
	for name, applied := range map[string]string{
		"kubectl's copy": appliedSecret,
		"escaped kind":   strings.Replace(appliedSecret, `"kind":"Secret"`, `"kind":"Secr\u0065t"`, 1),
		"kind in caps":   strings.Replace(appliedSecret, `"kind":"Secret"`, `"KIND":"Secret"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			cm := configMapCopying(applied)
			v := p.DecideObject("configmaps", cm)
			if !v.Secret || !v.Needed() || !p.Secret("configmaps", cm) || !p.Needed("configmaps", cm) {
				t.Fatalf("verdict %+v: a ConfigMap copying a Secret must be secret", v)
			}
			got := p.YAML("configmaps", cm)
			assertNoSecret(t, "the YAML", got)
			if !strings.Contains(got, "team: db") || !strings.Contains(got, "password: <redacted, 12 bytes>") {
				t.Fatalf("the ConfigMap should keep its metadata and its data keys:\n%s", got)
			}
			after := cm.DeepCopy()
			after.Data["password"] = "an0ther-s3cr3t"
			changes := strings.Join(FieldChanges("configmaps", cm, after), "\n")
			if strings.Contains(changes, "an0ther") || !strings.Contains(changes, "data.password: <redacted, 12 bytes> → <redacted, 14 bytes>") {
				t.Fatalf("the mutation report: %s", changes)
			}
			body := `{"kind":"ConfigMapList","apiVersion":"v1","items":[` + mustJSON(t, cm) + `]}`
			assertNoSecret(t, "the logged body", p.Body(body))
		})
	}
}

// Anything else stays readable and keeps the writers' fast path: a
// ConfigMap's own last-applied, one that only mentions a Secret inside,
// and other annotations holding a Secret's JSON.
func TestOtherCopiesStayReadable(t *testing.T) {
	p := Current()
	for name, ann := range map[string]map[string]string{
		"own copy":      {LastApplied: `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}`},
		"nested Secret": {LastApplied: `{"kind":"ConfigMap","data":{"note":"{\"kind\":\"Secret\"}"}}`},
		"other key":     {"example.com/note": appliedSecret},
		"none":          nil,
	} {
		v := p.Decide("configmaps", "ConfigMap", maps.All(ann))
		if v.Secret || v.Needed() {
			t.Errorf("%s: verdict %+v, want nothing hidden", name, v)
		}
	}
	// Where the resource is unknown, a copy naming no kind may be of a
	// Secret: it alone is hidden.
	v := p.Decide("", "ConfigMap", maps.All(map[string]string{LastApplied: "H4sIAAAA", "team": "db"}))
	if v.Secret || !v.Needed() || !v.HideAnnotation(LastApplied, "H4sIAAAA") || v.HideAnnotation("team", "db") {
		t.Errorf("unknown resource: verdict %+v", v)
	}
}

// A table row of an object found secret shows names and ages only.
func TestVerdictTableCell(t *testing.T) {
	p := Current()
	v := p.DecideObject("configmaps", configMapCopying(appliedSecret))
	if got := v.TableCell("Data", "1"); got != Value(1) {
		t.Errorf("DATA of a ConfigMap copying a Secret: %q", got)
	}
	if got := v.TableCell("Name", "db"); got != "db" {
		t.Errorf("NAME: %q", got)
	}
	if got := p.DecideObject("secrets", &corev1.Secret{}).TableCell("Type", "Opaque"); got != "Opaque" {
		t.Errorf("a Secret's TYPE: %q", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
