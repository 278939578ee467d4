package replay

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informtop/informtop/recording"
)

func protoPod(t *testing.T, name, rv string) []byte {
	t.Helper()
	b, err := (&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTypedWhenEveryObjectIsProtobuf: an informer whose recorded objects
// are all protobuf of one kind is replayed with typed objects, as it ran;
// one JSON object or a second kind makes it unstructured.
func TestTypedWhenEveryObjectIsProtobuf(t *testing.T) {
	page := recording.Record{T: 1, Kind: recording.KindList, Informer: "pods", RV: "2", ProtoKind: "v1/Pod", Proto: [][]byte{protoPod(t, "a", "1"), protoPod(t, "b", "2")}}
	watchCall := recording.Record{T: 2, Kind: recording.KindWatch, Informer: "pods"}
	event := recording.Record{T: 3, Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", ProtoKind: "v1/Pod", Proto: [][]byte{protoPod(t, "a", "3")}}
	gone := recording.Record{T: 4, Kind: recording.KindEvent, Informer: "pods", Type: "ERROR", Object: json.RawMessage(`{"kind":"Status","code":410}`)}
	jsonEvent := recording.Record{T: 5, Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", Object: json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"c"}}`)}
	otherKind := event
	otherKind.ProtoKind = "v1/ConfigMap"

	lw := newListerWatcher("pods", calls([]recording.Record{page, watchCall, event, gone}, "pods"), &clock{}, false)
	if lw.typed == nil || *lw.typed != corev1.SchemeGroupVersion.WithKind("Pod") {
		t.Fatalf("served as %v, want typed pods", lw.typed)
	}
	if _, ok := lw.exampleObject().(*corev1.Pod); !ok {
		t.Errorf("example %T", lw.exampleObject())
	}
	list, err := lw.typedPage(page)
	if pods, ok := list.(*corev1.PodList); err != nil || !ok || len(pods.Items) != 2 || pods.Items[1].Name != "b" || pods.ResourceVersion != "2" {
		t.Errorf("page %#v (%v)", list, err)
	}
	if obj, err := lw.decodeEventObject(event); err != nil || obj.(*corev1.Pod).ResourceVersion != "3" {
		t.Errorf("event %#v (%v)", obj, err)
	}
	if obj, err := lw.decodeEventObject(gone); err != nil || obj.(*metav1.Status).Code != 410 {
		t.Errorf("410 %#v (%v)", obj, err)
	}
	for name, odd := range map[string]recording.Record{"a JSON object": jsonEvent, "another kind": otherKind} {
		lw := newListerWatcher("pods", calls([]recording.Record{page, watchCall, event, odd}, "pods"), &clock{}, false)
		if lw.typed != nil {
			t.Errorf("with %s: served typed", name)
		}
		if _, ok := lw.exampleObject().(*unstructured.Unstructured); !ok {
			t.Errorf("with %s: example %T", name, lw.exampleObject())
		}
	}
}
