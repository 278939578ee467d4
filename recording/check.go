package recording

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// eventTypes are the watch event types a recording holds, callbacks the
// listener callbacks.
var (
	eventTypes = []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}
	callbacks  = []string{"OnAdd", "OnUpdate", "OnUpdate(sync)", "OnDelete"}
)

// stream is what one informer's records must agree on: the kind of their
// objects.
type stream struct {
	informer string
	resource string
	// want is the kind the informer's resource names, when this build
	// knows the resource; else group is its group (a custom resource's).
	want  *schema.GroupKind
	group string
	// gvk is the kind of the first object read; typed says the stream's
	// objects are handed out as Go types of it. settled: typed is decided.
	seen    bool
	gvk     schema.GroupVersionKind
	typed   bool
	settled bool
}

func newStream(inf Informer) *stream {
	st := &stream{informer: inf.Name, resource: inf.Resource}
	// --metadata-only informers hold PartialObjectMetadata, whatever
	// their resource.
	if inf.Resource == "" || slices.Contains(inf.Transforms, "metadata-only") {
		return st
	}
	gr := schema.ParseGroupResource(inf.Resource)
	if gk, ok := resourceKinds()[gr]; ok {
		st.want = &gk
	} else {
		st.group = gr.Group
	}
	return st
}

// resourceKinds maps the resources this build's scheme knows to their
// kind, as "kubectl api-resources" names them (pods, deployments.apps).
var resourceKinds = sync.OnceValue(func() map[schema.GroupResource]schema.GroupKind {
	out := map[schema.GroupResource]schema.GroupKind{}
	ambiguous := map[schema.GroupResource]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		gr, gk := plural.GroupResource(), gvk.GroupKind()
		if prev, ok := out[gr]; ok && prev != gk {
			ambiguous[gr] = true
		}
		out[gr] = gk
	}
	for gr := range ambiguous {
		delete(out, gr)
	}
	return out
})

// check refuses a record that does not fit its file: a field out of
// place, an object that does not decode or is not of its informer's
// kind. It decodes the record's objects (see Record.Decoded), leaving out
// those the recorder could not store.
func (r *Reader) check(rec *Record) error {
	record := r.n
	bad := func(format string, args ...any) error {
		return &FileError{Path: r.name, Offset: r.offset(), Record: record, Stream: rec.Offset,
			Problem: "is corrupt: " + fmt.Sprintf(format, args...), Fix: fixDamaged}
	}
	var st *stream
	switch rec.Kind {
	case KindList, KindWatch, KindEvent, KindClose, KindCall:
		if st = r.streams[rec.Informer]; st == nil {
			return bad("a record names informer %q, which the header does not list", rec.Informer)
		}
	case KindGap:
		if rec.Informer != "" || rec.Dropped == 0 {
			return bad("a gap record is malformed")
		}
	default:
		return bad("a record is of unknown kind %q", rec.Kind)
	}
	if rec.T < 0 {
		return bad("a record has a negative time")
	}
	hasJSON := rec.Object != nil || rec.Items != nil
	objects := rec.ProtoCount + len(rec.Items)
	if rec.Object != nil {
		objects++
	}
	switch {
	case rec.ProtoKind == "" && rec.ProtoCount > 0:
		return bad("a record has protobuf objects but names no kind")
	case rec.ProtoKind != "" && rec.ProtoCount == 0:
		return bad("a record names a protobuf kind but holds no objects")
	case rec.ProtoCount > 0 && hasJSON:
		return bad("a record holds objects both in protobuf and in JSON")
	}
	var gvk schema.GroupVersionKind
	if rec.ProtoKind != "" {
		var err error
		if gvk, err = parseProtoKind(rec.ProtoKind); err != nil {
			return bad("a record has objects of an unreadable kind: %v", err)
		}
		if !scheme.Scheme.Recognizes(gvk) {
			return bad("a record has objects of kind %q, which this informtop cannot decode", rec.ProtoKind)
		}
	}
	switch rec.Kind {
	case KindList:
		if rec.Object != nil || (rec.Err != nil && objects > 0) {
			return bad("a list record holds objects it cannot have")
		}
	case KindWatch:
		if objects > 0 {
			return bad("a watch record holds objects")
		}
	case KindEvent:
		if !slices.Contains(eventTypes, rec.Type) {
			return bad("an event is of type %q, which is none of %s", rec.Type, strings.Join(eventTypes, ", "))
		}
		if objects != 1 || rec.Items != nil {
			return bad("an event holds %d objects, not one", objects)
		}
	case KindClose:
		if rec.By != "server" && rec.By != "client" {
			return bad("a close record says it was closed by %q, neither the server nor the client", rec.By)
		}
	case KindCall:
		// Its listener may be missing from the header: one added while
		// recording (a replay takes no time in its callbacks).
		if !slices.Contains(callbacks, rec.Callback) || rec.Duration < 0 {
			return bad("a callback record is malformed")
		}
	}
	if objects == 0 {
		if rec.Kind == KindList && rec.Err == nil {
			rec.objs = []runtime.Object{}
		}
		return nil
	}
	if rec.Kind == KindEvent && rec.Type == "ERROR" {
		st := &metav1.Status{}
		if rec.Object == nil || json.Unmarshal(rec.Object, st) != nil {
			return bad("an ERROR event's object is not a Status")
		}
		rec.objs = []runtime.Object{st}
		return nil
	}
	rec.objs = make([]runtime.Object, 0, objects)
	add := func(obj runtime.Object, problem string) error {
		if problem != "" {
			return bad("%s", problem)
		}
		if obj != nil {
			rec.objs = append(rec.objs, obj)
		}
		return nil
	}
	bookmark := rec.Type == "BOOKMARK"
	for _, b := range rec.Proto {
		if err := add(r.fromProto(st, gvk, b, bookmark)); err != nil {
			return err
		}
	}
	raws := rec.Items
	if rec.Object != nil {
		raws = []json.RawMessage{rec.Object}
	}
	var items []json.RawMessage // rec.Items without what was not stored, once one was not
	for i, raw := range raws {
		n := len(rec.objs)
		if err := add(r.fromJSON(st, raw, bookmark, record)); err != nil {
			return err
		}
		switch stored := len(rec.objs) > n; {
		case rec.Items == nil:
		case !stored && items == nil:
			items = append(make([]json.RawMessage, 0, len(raws)), raws[:i]...)
		case stored && items != nil:
			items = append(items, raw)
		}
	}
	if items != nil {
		rec.Items = items
	}
	if rec.Kind == KindEvent && len(rec.objs) == 0 {
		rec.objs = nil // the recorder could not store it: Next leaves it out
	}
	return nil
}

// fromProto decodes one protobuf object of kind gvk and fits it to st;
// problem says why it does not fit.
func (r *Reader) fromProto(st *stream, gvk schema.GroupVersionKind, b []byte, bookmark bool) (runtime.Object, string) {
	obj, err := scheme.Scheme.New(gvk)
	if err == nil {
		err = unmarshalProto(obj, b)
	}
	if err != nil {
		return nil, fmt.Sprintf("an object does not decode as a %s: %v", gvk.Kind, err)
	}
	return r.fit(st, obj, gvk, true, bookmark)
}

// fromJSON decodes one JSON object and fits it to st; nil without a
// problem for the recorder's note of an object it could not store.
func (r *Reader) fromJSON(st *stream, raw json.RawMessage, bookmark bool, record int) (runtime.Object, string) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, "an object is not a JSON object"
	}
	if msg, ok := m["error"].(string); ok && len(m) == 1 {
		if r.unstored.Objects == 0 {
			r.unstored.First, r.unstored.Record = msg, record
		}
		r.unstored.Objects++
		return nil, ""
	}
	kind, _ := m["kind"].(string)
	if kind == "" {
		return nil, "an object names no kind"
	}
	gvk := schema.GroupVersionKind{Kind: kind}
	apiVersion, _ := m["apiVersion"].(string)
	if apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, fmt.Sprintf("an object has the malformed apiVersion %q", apiVersion)
		}
		gvk = gv.WithKind(kind)
	}
	if _, ok := m["metadata"].(map[string]any); !ok {
		return nil, fmt.Sprintf("a %s has no metadata", printable(kind))
	}
	return r.fit(st, &unstructured.Unstructured{Object: m}, gvk, apiVersion != "", bookmark)
}

// fit checks that obj, of kind gvk (whose group and version are known
// when grouped), belongs in st, and returns it in the stream's form.
func (r *Reader) fit(st *stream, obj runtime.Object, gvk schema.GroupVersionKind, grouped, bookmark bool) (runtime.Object, string) {
	_, isProto := obj.(*unstructured.Unstructured)
	isProto = !isProto
	kind := printable(gvk.Kind)
	switch {
	case st.want != nil && (gvk.Kind != st.want.Kind || (grouped && gvk.Group != st.want.Group)):
		return nil, fmt.Sprintf("informer %q (resource %q) holds a %s, which is not a %s", st.informer, st.resource, describe(gvk, grouped), st.want.Kind)
	case st.want == nil && st.resource != "" && grouped && st.group != "" && gvk.Group != st.group:
		return nil, fmt.Sprintf("informer %q (resource %q) holds a %s, which is not of group %q", st.informer, st.resource, describe(gvk, grouped), st.group)
	case !st.seen:
		st.seen, st.gvk = true, gvk
		if !grouped && st.want != nil {
			st.gvk.Group = st.want.Group
		}
		if !st.settled {
			st.settled = true
			st.typed = isProto && scheme.Scheme.Recognizes(gvk) && scheme.Scheme.Recognizes(gvk.GroupVersion().WithKind(gvk.Kind+"List"))
		}
	case gvk.Kind != st.gvk.Kind || (grouped && st.gvk.Group != "" && gvk.Group != st.gvk.Group):
		return nil, fmt.Sprintf("informer %q holds a %s after a %s", st.informer, describe(gvk, grouped), describe(st.gvk, true))
	case st.typed && isProto && gvk != st.gvk:
		return nil, fmt.Sprintf("informer %q holds a %s after a %s", st.informer, describe(gvk, true), describe(st.gvk, true))
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Sprintf("a %s has no metadata", kind)
	}
	switch {
	case bookmark && acc.GetResourceVersion() == "":
		return nil, fmt.Sprintf("a BOOKMARK event's %s has no resourceVersion", kind)
	case !bookmark && acc.GetName() == "":
		return nil, fmt.Sprintf("a %s has no name", kind)
	}
	if field := longMetadata(acc); field != "" {
		return nil, fmt.Sprintf("a %s's %s is longer than the %s such a field may take", kind, field, humanize.Bytes(MaxField))
	}
	if field := invalidMetadata(acc); field != "" {
		return nil, fmt.Sprintf("a %s has a %s no API server accepts", kind, field)
	}
	switch u, isU := obj.(*unstructured.Unstructured); {
	case st.typed && isU:
		typed, err := scheme.Scheme.New(st.gvk)
		if err == nil {
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed)
		}
		if err != nil {
			return nil, fmt.Sprintf("a %s does not decode as one: %v", kind, err)
		}
		// As a typed client leaves it, and as protobuf objects decode.
		typed.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		return typed, ""
	case !st.typed && !isU:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Sprintf("a %s does not convert: %v", kind, err)
		}
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
		return &unstructured.Unstructured{Object: m}, ""
	}
	return obj, ""
}

// describe names a kind for a sentence: "Secret", "apps/v1 Deployment".
func describe(gvk schema.GroupVersionKind, grouped bool) string {
	if !grouped || gvk.Version == "" {
		return printable(gvk.Kind)
	}
	return printable(gvk.GroupVersion().String() + " " + gvk.Kind)
}

// longJSONMetadata is longMetadata for an object's JSON, or the start
// of it: the object's kind ("object" when it names none readable before
// its metadata) and the field past MaxField, as written.
func longJSONMetadata(raw []byte) (kind, field string) {
	kind = "object"
	_ = eachField(raw, func(key, value []byte, _ bool) error {
		switch string(key) {
		case "kind":
			var k string
			if len(value) <= MaxField && json.Unmarshal(value, &k) == nil && k != "" {
				kind = printable(k)
			}
		case "metadata":
			return eachField(value, func(key, value []byte, _ bool) error {
				switch f := string(key); f {
				case "name", "namespace", "generateName", "resourceVersion", "uid":
					if len(value) > MaxField+2 && field == "" {
						field = f
					}
				}
				return nil
			})
		}
		return nil
	})
	return kind, field
}

// longMetadata names a field of an object's metadata that takes more
// than MaxField: what is shown and copied of every object (its name, its
// resourceVersion) stays small whatever the object holds. JSON objects
// are checked before they are decoded (longJSONMetadata); this is for
// protobuf.
func longMetadata(acc metav1.Object) string {
	for _, f := range [...]struct {
		name, value string
	}{{"name", acc.GetName()}, {"namespace", acc.GetNamespace()}, {"generateName", acc.GetGenerateName()},
		{"resourceVersion", acc.GetResourceVersion()}, {"uid", string(acc.GetUID())}} {
		if len(f.value) > MaxField {
			return f.name
		}
	}
	for k, v := range acc.GetLabels() {
		if len(k) > MaxField || len(v) > MaxField {
			return "label"
		}
	}
	for k := range acc.GetAnnotations() {
		if len(k) > MaxField {
			return "annotation key"
		}
	}
	return ""
}

// invalidMetadata names a field of an object's metadata that breaks the
// API's rules (no server would have sent it, so the file was damaged),
// "" if none does. It checks what keys the object and what every object
// has, cheaply: names are path segments, label keys and values and
// annotation keys are qualified names.
func invalidMetadata(acc metav1.Object) string {
	segment := func(s string) bool { return plainText(s) && !strings.ContainsAny(s, "/%") }
	switch {
	case !segment(acc.GetName()):
		return "name"
	case !segment(acc.GetNamespace()):
		return "namespace"
	case !segment(acc.GetGenerateName()):
		return "generateName"
	case !plainText(acc.GetResourceVersion()):
		return "resourceVersion"
	case !plainText(string(acc.GetUID())):
		return "uid"
	}
	for k, v := range acc.GetLabels() {
		if !qualifiedName(k) || !labelValue(v) {
			return "label"
		}
	}
	for k := range acc.GetAnnotations() {
		if !qualifiedName(k) {
			return "annotation"
		}
	}
	return ""
}

// qualifiedName: s is [prefix/]name, a prefix of DNS labels and a name of
// alphanumerics and -_. that starts and ends alphanumeric.
func qualifiedName(s string) bool {
	prefix, name, found := strings.Cut(s, "/")
	if !found {
		prefix, name = "", s
	} else if prefix == "" || strings.Trim(prefix, "abcdefghijklmnopqrstuvwxyz0123456789-.") != "" {
		return false
	}
	return name != "" && labelValue(name)
}

// labelValue: s is empty, or alphanumerics and -_. that start and end
// alphanumeric.
func labelValue(s string) bool {
	if s == "" {
		return true
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return alnum(s[0]) && alnum(s[len(s)-1])
}

// plainText: s is UTF-8 without control characters.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return printableString(s) && utf8.ValidString(s) // the rare name that is not ASCII
		}
	}
	return true
}
