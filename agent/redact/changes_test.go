package redact

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFieldChangesAreJSONPaths(t *testing.T) {
	before := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
	}
	after := before.DeepCopy()
	after.Labels["app"] = "db"
	after.Spec.Containers[0].Image = "nginx:2"
	after.Annotations = map[string]string{"a": "1"}
	got := FieldChanges("", before, after)
	want := []string{
		`metadata.annotations.a: "" → "1"`,
		`metadata.labels.app: "web" → "db"`,
		`spec.containers[0].image: "nginx:1" → "nginx:2"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldChanges = %q, want %q", got, want)
	}
}

// A handler that writes into a cached Secret is reported without the
// secret's values: these reports reach the dashboard, events and the agent.
func TestFieldChangesOfASecretShowSizesNotValues(t *testing.T) {
	before := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"aHVudGVyMg=="}}`}},
		Data: map[string][]byte{"password": []byte("hunter2")},
	}
	after := before.DeepCopy()
	after.Data["password"] = []byte("swordfish")
	after.Data["token"] = []byte("abc")
	after.StringData = map[string]string{"extra": "abcd"} // valid base64, yet 4 bytes as written
	after.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = `{"data":{"password":"c3dvcmRmaXNo"}}`
	after.Labels = map[string]string{"touched": "yes"}
	got := FieldChanges("", before, after)
	want := []string{
		`data.password: <redacted, 7 bytes> → <redacted, 9 bytes>`,
		`data.token: "" → <redacted, 3 bytes>`,
		`metadata.annotations.kubectl.kubernetes.io/last-applied-configuration: <redacted, 36 bytes> → <redacted, 36 bytes>`,
		`metadata.labels.touched: "" → "yes"`,
		`stringData.extra: "" → <redacted, 4 bytes>`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldChanges = %q, want %q", got, want)
	}
	for _, c := range got {
		for _, secret := range []string{"hunter2", "swordfish", "aHVudGVyMg", "c3dvcmRmaXNo", "abcd", "abc\""} {
			if strings.Contains(c, secret) {
				t.Fatalf("a field change shows secret data %q: %s", secret, c)
			}
		}
	}
}

// A list that grows is compared index by index; a whole map that appears
// is listed leaf by leaf; an unchanged object lists nothing.
func TestFieldChangesOfListsAndNewMaps(t *testing.T) {
	before := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}}
	if got := FieldChanges("", before, before.DeepCopy()); len(got) != 0 {
		t.Fatalf("an unchanged pod: %q", got)
	}
	after := before.DeepCopy()
	after.Spec.Containers = append(after.Spec.Containers, corev1.Container{Name: "b"})
	after.Labels = map[string]string{"x": "1", "y": "2"}
	got := FieldChanges("", before, after)
	want := []string{`metadata.labels.x: "" → "1"`, `metadata.labels.y: "" → "2"`, `spec.containers[1].name: "" → "b"`, `spec.containers[1].resources: "" → {}`}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldChanges = %q, want %q", got, want)
	}
	many := before.DeepCopy()
	many.Labels = map[string]string{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		many.Labels[k] = k
	}
	if got := FieldChanges("", before, many); len(got) != 9 || got[8] != "… and 2 more" {
		t.Fatalf("ten changes: %q, want eight and a count of the rest", got)
	}
}
