package wirekeep

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// decode runs b through the protobuf decoder of k's wrapped serializer,
// as a REST client does.
func decode(t *testing.T, k *Keeper, b []byte) runtime.Object {
	t.Helper()
	ns := k.Serializer(scheme.Codecs.WithoutConversion())
	info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	obj, err := runtime.Decode(ns.DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion), b)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func encode(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	b, err := runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion), obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeeper: nothing is kept until armed; then each single object's bytes
// are kept until taken once, lists never, and Forget drops the rest.
func TestKeeper(t *testing.T) {
	var k Keeper
	pod := encode(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}})
	if obj := decode(t, &k, pod); obj.(*corev1.Pod).Name != "a" {
		t.Fatalf("decoded %+v", obj)
	}
	if kept, _ := k.Stats(); kept != 0 {
		t.Fatalf("kept %d while disarmed", kept)
	}
	k.Arm()
	obj := decode(t, &k, pod)
	decode(t, &k, encode(t, &corev1.PodList{Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "b"}}}}))
	if kept, _ := k.Stats(); kept != 1 {
		t.Fatalf("kept %d, want the pod only", kept)
	}
	if b, ok := k.Take(obj); !ok || !bytes.Equal(b, pod) {
		t.Fatalf("took %q %v, want the pod's bytes", b, ok)
	}
	if _, ok := k.Take(obj); ok {
		t.Fatal("taken twice")
	}
	stale := decode(t, &k, pod)
	k.Forget()
	if _, ok := k.Take(stale); ok {
		t.Fatal("taken after Forget")
	}
	for range maxKept + 10 {
		decode(t, &k, pod)
	}
	if kept, taken := k.Stats(); kept > maxKept || taken != 1 {
		t.Fatalf("kept %d (bound %d), taken %d", kept, maxKept, taken)
	}
}

// TestKeeperInStreamOrder: taking an object drops what was decoded before
// it and never taken (a stopped stream's events), and keeps what came
// after; an object never kept is not found.
func TestKeeperInStreamOrder(t *testing.T) {
	var k Keeper
	k.Arm()
	pods := make([]runtime.Object, 3)
	for i, name := range []string{"a", "b", "c"} {
		pods[i] = decode(t, &k, encode(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	if _, ok := k.Take(pods[1]); !ok {
		t.Fatal("b not taken")
	}
	if _, ok := k.Take(pods[0]); ok {
		t.Error("a, decoded before b, still taken after b")
	}
	if kept, _ := k.Stats(); kept != 1 {
		t.Errorf("%d kept, want c alone", kept)
	}
	if _, ok := k.Take(&corev1.Pod{}); ok {
		t.Error("an object never decoded was taken")
	}
	if b, ok := k.Take(pods[2]); !ok || !bytes.Contains(b, []byte("c")) {
		t.Errorf("c taken as %q %v", b, ok)
	}
	if _, taken := k.Stats(); taken != 2 {
		t.Errorf("%d taken, want 2", taken)
	}
}
