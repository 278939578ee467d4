package recording

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

func managedPod(name, rv string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, Labels: map[string]string{"app": "a"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate}}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}},
	}
}

// TestTeeRecordsTypedObjectsAsProtobuf: typed objects go to the file in
// protobuf, without managedFields, and read back as the source showed
// them; the reflector still gets them untouched. An ERROR event's Status
// stays JSON.
func TestTeeRecordsTypedObjectsAsProtobuf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.rec.zst")
	w, err := Create(path, Header{Informers: []Informer{{Name: "pods"}}})
	if err != nil {
		t.Fatal(err)
	}
	fw := watch.NewFakeWithChanSize(4, false)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "2"}, Items: []corev1.Pod{*managedPod("a", "1"), *managedPod("b", "2")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	tee := cache.ToListerWatcherWithContext(Tee(lw, "pods", w))
	ctx := context.Background()
	list, err := tee.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := list.(*corev1.PodList).Items[1].ManagedFields; len(got) != 1 {
		t.Fatalf("the listed pod's managedFields changed: %v", got)
	}
	wi, err := tee.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	fw.Modify(managedPod("a", "3"))
	fw.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"})
	if ev := <-wi.ResultChan(); len(ev.Object.(*corev1.Pod).ManagedFields) != 1 {
		t.Fatalf("the reflector got a changed pod: %+v", ev.Object)
	}
	<-wi.ResultChan()
	wi.Stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	rec, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rec.Records {
		kinds = append(kinds, string(r.Kind)+":"+r.ProtoKind)
	}
	if got := strings.Join(kinds, ","); got != "list:v1/Pod,watch:,event:v1/Pod,event:,close:" {
		t.Fatalf("records %s", got)
	}
	want := func(name, rv string) map[string]any {
		p := managedPod(name, rv)
		p.ManagedFields = nil
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
		if err != nil {
			t.Fatal(err)
		}
		m["apiVersion"], m["kind"] = "v1", "Pod"
		return m
	}
	page, err := rec.Records[0].Objects()
	if err != nil || !reflect.DeepEqual(page, []map[string]any{want("a", "1"), want("b", "2")}) {
		t.Errorf("page reads back as %v (%v)", page, err)
	}
	ev, err := rec.Records[2].Objects()
	if err != nil || !reflect.DeepEqual(ev, []map[string]any{want("a", "3")}) {
		t.Errorf("event reads back as %v (%v)", ev, err)
	}
	if st := string(rec.Records[3].Object); rec.Records[3].Type != "ERROR" || !strings.Contains(st, `"code":410`) {
		t.Errorf("ERROR event %s %s", rec.Records[3].Type, st)
	}
	if plain := decompressed(t, path); strings.Contains(plain, "kube-controller-manager") {
		t.Error("managedFields reached the file")
	}
}

// decompressed is the file's decompressed bytes.
func decompressed(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(plain)
}
