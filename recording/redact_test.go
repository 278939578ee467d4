package recording

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/agent/redact"
)

// appliedSecret is a Secret as kubectl apply copies it into the
// last-applied annotation: its data in base64, its stringData in plain.
const appliedSecret = `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"name":"db","namespace":"shop"},"stringData":{"token":"plain-s3cr3t"},"type":"Opaque"}`

var appliedValues = []string{"aHVudGVyMg", "hunter2", "plain-s3cr3t"}

// A recording stores an object's bytes only when a view shows it whole:
// a ConfigMap (typed or metadata-only) whose last-applied annotation
// copies a Secret is stored redacted as JSON, from the wire's bytes as
// from a Go object, and a ConfigMap copying itself keeps the fast path.
func TestRecordingCarriesNothingAViewRedacts(t *testing.T) {
	escaped := strings.Replace(appliedSecret, `"kind":"Secret"`, `"kind":"Secr\u0065t"`, 1)
	copying := func(applied string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "db", Namespace: "shop", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
			Annotations: map[string]string{redact.LastApplied: applied, "team": "db"}}
	}
	for _, c := range []struct {
		name   string
		obj    runtime.Object
		secret bool
	}{
		{"configmap copying a Secret", &corev1.ConfigMap{ObjectMeta: copying(appliedSecret), Data: map[string]string{"password": "plain-s3cr3t"}}, true},
		{"escaped kind", &corev1.ConfigMap{ObjectMeta: copying(escaped)}, true},
		{"metadata-only", &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: copying(appliedSecret)}, true},
		{"configmap copying itself", &corev1.ConfigMap{ObjectMeta: copying(`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}}`),
			Data: map[string]string{"k": "v"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			view := redact.YAML("configmaps", c.obj)
			if redact.Current().Needed("configmaps", c.obj) != c.secret {
				t.Fatalf("the decision: Needed is %v, want %v; the view:\n%s", !c.secret, c.secret, view)
			}
			var scratch wireScratch
			var r Record
			var pieces [][]byte
			if _, partial := c.obj.(*metav1.PartialObjectMetadata); partial {
				// Not a kind of client-go's scheme: what the tee keeps of
				// it is a copy, encoded as JSON.
				r.Object = encodeObject("configmaps", c.obj.DeepCopyObject())
			} else {
				pieces = fromWire("configmaps", wireBytes(t, c.obj), &r, &scratch)
			}
			stored := string(r.Object) + string(bytes.Join(pieces, nil))
			kind, b, proto := protoOf("configmaps", c.obj)
			if c.secret {
				if pieces != nil || proto || !strings.Contains(stored, redact.LastApplied+`":"\u003credacted, `) {
					t.Fatalf("stored from the wire as %q (%s), protoOf %v; want redacted JSON", stored, r.ProtoKind, proto)
				}
				for _, v := range append(appliedValues, "Secr") {
					if strings.Contains(stored, v) {
						t.Fatalf("the wire's copy keeps %q: %s", v, stored)
					}
				}
				return
			}
			if pieces == nil || !proto || kind != "v1/ConfigMap" || len(b) == 0 || !strings.Contains(stored, `"kind":"ConfigMap"`) {
				t.Fatalf("a ConfigMap a view shows whole should keep its protobuf: %q %q %v", r.ProtoKind, r.Object, proto)
			}
		})
	}
}

// An object whose annotations cannot be read is not stored as it came.
func TestWireAnnotationsThatDoNotParse(t *testing.T) {
	k := newWireKind("v1", "ConfigMap")
	md := []byte{byte(annotationsNum<<3 | 2), 3, 0x0a, 9, 'x'} // an entry claiming more than it holds
	body := append([]byte{byte(k.metaNum<<3 | 2), byte(len(md))}, md...)
	var s wireScratch
	if _, err := s.needsRedaction(redact.Current(), "configmaps", k, body); err == nil {
		t.Fatal("a malformed annotation was read as none")
	}
}
