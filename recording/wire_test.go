package recording

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/internal/benchrun"
	"github.com/informtop/informtop/internal/benchwire"
	"github.com/informtop/informtop/internal/wirekeep"
)

// wireBytes is obj as the API server sends it in protobuf.
func wireBytes(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	b, err := benchwire.Protobuf(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unstructuredOf(t *testing.T, obj runtime.Object, apiVersion, kind string) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = apiVersion, kind
	return m
}

// TestFromWire: an object taken as the API server sent it is stored
// without managedFields and reads back whole; a Secret is redacted; JSON
// is stored as JSON; bytes that are no object say so instead of failing
// the recording.
func TestFromWire(t *testing.T) {
	var scratch wireScratch
	pod := benchwire.Pod(3, 42)
	var r Record
	pieces := fromWire("", wireBytes(t, pod), &r, &scratch)
	if r.ProtoKind != "v1/Pod" || pieces == nil || r.Object != nil {
		t.Fatalf("record %+v", r)
	}
	r.Proto = [][]byte{bytes.Join(pieces, nil)}
	objs, err := r.Objects()
	want := pod.DeepCopy()
	want.ManagedFields = nil
	if err != nil || !reflect.DeepEqual(objs, []map[string]any{unstructuredOf(t, want, "v1", "Pod")}) {
		t.Errorf("reads back as %v (%v)", objs, err)
	}
	if strings.Contains(string(r.Proto[0]), "kube-controller-manager") {
		t.Error("managedFields stayed in the bytes")
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}, Data: map[string][]byte{"password": []byte("hunter2")}}
	r = Record{}
	if fromWire("", wireBytes(t, secret), &r, &scratch) != nil {
		t.Error("a Secret was kept in protobuf")
	}
	if s := string(r.Object); r.ProtoKind != "" || strings.Contains(s, "aHVudGVyMg") || strings.Contains(s, "kubectl") || !strings.Contains(s, "redacted, 7 bytes") || !strings.Contains(s, `"kind":"Secret"`) {
		t.Errorf("secret stored as %s %q", r.ProtoKind, s)
	}

	r = Record{}
	fromWire("", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"helm"}]},"data":{"k":"v"}}`), &r, &scratch)
	if s := string(r.Object); strings.Contains(s, "helm") || !strings.Contains(s, `"data":{"k":"v"}`) {
		t.Errorf("JSON stored as %s", s)
	}

	for _, bad := range [][]byte{[]byte("k8s\x00\xff\xff"), []byte("not json")} {
		r = Record{}
		fromWire("", bad, &r, &scratch)
		if !strings.Contains(string(r.Object), "does not decode") {
			t.Errorf("%q stored as %s", bad, r.Object)
		}
	}
}

// TestCutManagedFieldsAnywhere: managedFields are cut wherever they lie
// in the metadata, in every metadata field of the object (protobuf merges
// repeated ones); an object without them is stored as it came; a cut that
// cannot parse says so.
func TestCutManagedFieldsAnywhere(t *testing.T) {
	str := func(b []byte, num protowire.Number, v string) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), []byte(v))
	}
	msg := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	entry := str(nil, 1, "kubectl") // ManagedFieldsEntry.manager
	meta1 := str(nil, 1, "web")
	meta1 = msg(meta1, managedFieldsNum, entry)
	meta1 = str(meta1, 3, "shop")
	meta1 = msg(meta1, managedFieldsNum, entry)
	meta1 = msg(meta1, 11, str(str(nil, 1, "app"), 2, "web")) // a label
	spec, err := (&corev1.PodSpec{NodeName: "node-1"}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	body := msg(nil, 1, meta1)
	body = msg(body, 2, spec)
	body = msg(body, 1, msg(str(nil, 2, "web-"), managedFieldsNum, entry)) // a second metadata, merged
	unknown := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: body}
	raw, err := unknown.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var scratch wireScratch
	var r Record
	pieces := fromWire("", append([]byte("k8s\x00"), raw...), &r, &scratch)
	if pieces == nil {
		t.Fatalf("not kept in protobuf: %s", r.Object)
	}
	var got corev1.Pod
	if err := got.Unmarshal(bytes.Join(pieces, nil)); err != nil {
		t.Fatal(err)
	}
	if got.Name != "web" || got.Namespace != "shop" || got.GenerateName != "web-" || got.Labels["app"] != "web" || got.Spec.NodeName != "node-1" || got.ManagedFields != nil {
		t.Errorf("cut down to %+v", got)
	}

	for _, plain := range [][]byte{msg(msg(nil, 1, str(nil, 1, "web")), 2, spec), msg(nil, 2, spec)} {
		unknown.Raw = plain
		raw, _ = unknown.Marshal()
		pieces = fromWire("", append([]byte("k8s\x00"), raw...), &r, &scratch)
		if !bytes.Equal(bytes.Join(pieces, nil), plain) {
			t.Errorf("an object without managedFields came back as %q, want %q", pieces, plain)
		}
	}

	unknown.Raw = msg(nil, 1, []byte{0x0a, 0x05, 'w'}) // a name longer than the metadata
	raw, _ = unknown.Marshal()
	r = Record{}
	if fromWire("", append([]byte("k8s\x00"), raw...), &r, &scratch) != nil || !strings.Contains(string(r.Object), "malformed") {
		t.Errorf("malformed metadata stored as %s", r.Object)
	}
}

// TestRecordingOverTheWire: an informer over a protobuf watch stream,
// recorded through the bytes its client kept: every event reads back as
// the pod the server sent, less managedFields, in order.
func TestRecordingOverTheWire(t *testing.T) {
	const initial, events = 20, 200
	srv, err := benchwire.New(initial, events)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src, err := srv.ListerWatcher()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wire.rec.zst")
	w, err := Create(path, Header{Informers: []Informer{{Name: "pods"}}})
	if err != nil {
		t.Fatal(err)
	}
	inf := benchrun.Wire(t, Tee(src, "pods", w), initial+events)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if kept, taken := src.(wirekeep.Source).WireKeeper().Stats(); kept != 0 || taken != events {
		t.Errorf("%d decoded objects kept and never taken, %d taken; want 0 and %d: the recording did not use the wire's bytes", kept, taken, events)
	}

	rec, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rec.Records {
		if r.Kind != KindEvent {
			continue
		}
		if r.Type == "ERROR" {
			// The server sends none; the client's own "context
			// canceled" as the informer stops is no part of the stream.
			t.Fatalf("an ERROR event was recorded: %s", r.Object)
		}
		objs, err := r.Objects()
		want := benchwire.Pod(n%initial, initial+n+1)
		want.ManagedFields = nil
		if r.Type != "MODIFIED" || r.ProtoKind != "v1/Pod" || err != nil || !reflect.DeepEqual(objs, []map[string]any{unstructuredOf(t, want, "v1", "Pod")}) {
			t.Fatalf("event %d: %s %s %v (%v)", n, r.Type, r.ProtoKind, objs, err)
		}
		n++
	}
	if n != events {
		t.Errorf("%d events recorded, want %d", n, events)
	}
	if rv := strconv.Itoa(initial + events); inf.LastSyncResourceVersion() != rv {
		t.Errorf("informer at %s, want %s", inf.LastSyncResourceVersion(), rv)
	}
}

// TestEventJSONIsMarshals: the writer's hand-written JSON of an event is
// what json.Marshal writes, and a record with any other field set, or a
// string that needs escaping, is left to json.Marshal.
func TestEventJSONIsMarshals(t *testing.T) {
	ev := Record{T: 1234567, Kind: KindEvent, Informer: "deployments.apps", Type: "MODIFIED", ProtoKind: "apps/v1/Deployment", ProtoCount: 1, Proto: [][]byte{{1}}}
	got, ok := appendEventJSON(nil, &ev)
	want, _ := json.Marshal(ev)
	if !ok || string(got) != string(want) {
		t.Fatalf("hand-written %s (%v), json.Marshal %s", got, ok, want)
	}
	handled := map[string]bool{"T": true, "Kind": true, "Informer": true, "Type": true, "ProtoKind": true, "ProtoCount": true, "Proto": true}
	rt := reflect.TypeFor[Record]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if handled[f.Name] || !f.IsExported() || f.Tag.Get("json") == "-" {
			continue // what a Reader sets, never written
		}
		r := ev
		v := reflect.ValueOf(&r).Elem().Field(i)
		switch v.Kind() {
		case reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(f.Type, 1, 1))
		case reflect.String:
			v.SetString("x")
		case reflect.Int, reflect.Int64:
			v.SetInt(1)
		case reflect.Uint64:
			v.SetUint(1)
		default:
			t.Fatalf("field %s of kind %s: teach this test and appendEventJSON about it", f.Name, v.Kind())
		}
		if _, ok := appendEventJSON(nil, &r); ok {
			t.Errorf("with %s set the event was still written by hand", f.Name)
		}
	}
	for _, s := range []string{`a"b`, "a\\b", "ü", "a<b", "\n"} {
		r := ev
		r.Informer = s
		if _, ok := appendEventJSON(nil, &r); ok {
			t.Errorf("informer %q written by hand", s)
		}
	}
}

// FuzzFromWire: whatever the API server sends, storing it never panics,
// and what is kept in protobuf has no managedFields left and decodes as
// the object did.
func FuzzFromWire(f *testing.F) {
	raw, err := benchwire.Protobuf(benchwire.Pod(1, 7))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:len(raw)/2])
	f.Add([]byte(`{"kind":"Pod"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Record
		var scratch wireScratch
		pieces := fromWire("", data, &r, &scratch)
		if pieces == nil || r.ProtoKind != "v1/Pod" {
			return
		}
		var whole corev1.Pod
		if whole.Unmarshal(bodyOf(data)) != nil {
			return // cut fine, but not a pod: nothing to compare
		}
		var cut corev1.Pod
		if err := cut.Unmarshal(bytes.Join(pieces, nil)); err != nil {
			t.Fatalf("a pod that decodes does not decode once cut: %v", err)
		}
		whole.ManagedFields = nil
		if cut.ManagedFields != nil || !reflect.DeepEqual(cut, whole) {
			t.Fatalf("cut to %+v, want %+v", cut, whole)
		}
	})
}

// bodyOf is the object in wire bytes, read without the writer's cache.
func bodyOf(data []byte) []byte {
	var s wireScratch
	_, body, _ := s.envelope(bytes.TrimPrefix(data, protobufMagic))
	return body
}
