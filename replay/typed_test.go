package replay

import (
	"context"
	"encoding/json"
	"strings"
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

// TestTypedWhenTheFirstObjectIsProtobuf: an informer whose first recorded
// object is protobuf is replayed with typed objects, as it ran, a JSON one
// of its kind among them included; one whose first object is JSON is
// replayed unstructured; an object of another kind is refused.
func TestTypedWhenTheFirstObjectIsProtobuf(t *testing.T) {
	page := recording.Record{T: 1, Kind: recording.KindList, Informer: "pods", RV: "2", ProtoKind: "v1/Pod", ProtoCount: 2, Proto: [][]byte{protoPod(t, "a", "1"), protoPod(t, "b", "2")}}
	watchCall := recording.Record{T: 2, Kind: recording.KindWatch, Informer: "pods"}
	event := recording.Record{T: 3, Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", ProtoKind: "v1/Pod", ProtoCount: 1, Proto: [][]byte{protoPod(t, "a", "3")}}
	gone := recording.Record{T: 4, Kind: recording.KindEvent, Informer: "pods", Type: "ERROR", Object: json.RawMessage(`{"kind":"Status","code":410}`)}
	jsonEvent := recording.Record{T: 5, Kind: recording.KindEvent, Informer: "pods", Type: "MODIFIED", Object: json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"c","namespace":"ns","resourceVersion":"5"}}`)}
	jsonPage := recording.Record{T: 1, Kind: recording.KindList, Informer: "pods", RV: "2", Items: []json.RawMessage{jsonEvent.Object}}
	otherKind := event
	otherKind.ProtoKind = "v1/ConfigMap"
	header := recording.Header{Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO"}}}
	// replayOf builds the replay of recs and reads them all, as Run does.
	replayOf := func(recs ...recording.Record) (*Source, error) {
		s, err := New(readerOf(t, &recording.Recording{Path: "t.rec.zst", Header: header, Records: recs}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.pump(context.Background())
		return s, s.Err()
	}

	s, err := replayOf(page, watchCall, event, gone, jsonEvent)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lw := s.lws[0]
	if lw.typed == nil || *lw.typed != corev1.SchemeGroupVersion.WithKind("Pod") {
		t.Fatalf("served as %v, want typed pods", lw.typed)
	}
	if _, ok := lw.exampleObject().(*corev1.Pod); !ok {
		t.Errorf("example %T", lw.exampleObject())
	}
	var served []string
	for lw.feed.len() > 0 {
		r := lw.feed.pop()
		for _, obj := range r.Decoded() {
			switch o := obj.(type) {
			case *corev1.Pod:
				served = append(served, "pod "+o.Name+"@"+o.ResourceVersion)
			case *metav1.Status:
				served = append(served, "status "+string(rune('0'+o.Code/100)))
			default:
				served = append(served, "other")
			}
		}
		if r.Kind == recording.KindList {
			list, err := lw.typedPage(r)
			if pods, ok := list.(*corev1.PodList); err != nil || !ok || len(pods.Items) != 2 || pods.Items[1].Name != "b" || pods.ResourceVersion != "2" {
				t.Errorf("page %#v (%v)", list, err)
			}
		}
	}
	if got := strings.Join(served, ", "); got != "pod a@1, pod b@2, pod a@3, status 4, pod c@5" {
		t.Errorf("served %s", got)
	}

	s, err = replayOf(jsonPage, watchCall, event)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if lw := s.lws[0]; lw.typed != nil {
		t.Errorf("a first object in JSON: served typed")
	} else if _, ok := lw.exampleObject().(*unstructured.Unstructured); !ok {
		t.Errorf("a first object in JSON: example %T", lw.exampleObject())
	} else if last := lw.feed.blocks[0][2].Decoded()[0]; !isUnstructured(last) {
		t.Errorf("a protobuf object after a JSON one: served as %T", last)
	}

	if _, err := replayOf(page, watchCall, otherKind); err == nil || !strings.Contains(err.Error(), `t.rec.zst is corrupt: informer "pods" (resource "pods") holds a v1 ConfigMap, which is not a Pod (record 3)`) {
		t.Errorf("another kind: %v", err)
	}
}

func isUnstructured(obj any) bool {
	_, ok := obj.(*unstructured.Unstructured)
	return ok
}
