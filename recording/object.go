package recording

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/agent/redact"
)

// protoMarshaler is what generated Kubernetes API types implement.
type protoMarshaler interface {
	Marshal() ([]byte, error)
}

type protoUnmarshaler interface {
	Unmarshal([]byte) error
}

// protoOf encodes obj as Kubernetes protobuf without its managedFields,
// on the caller's goroutine and without changing obj: the tee calls it
// before the reflector gets obj, so no copy is needed to keep the
// recording apart from what the pipeline later does to obj. ok is false
// for what protobuf cannot or must not carry: whatever a view would
// redact (Secrets, objects copying one; stored redacted as JSON),
// unstructured objects, kinds client-go's scheme does not know.
func protoOf(resource string, obj runtime.Object) (kind string, b []byte, ok bool) {
	if redact.Current().Needed(resource, obj) {
		return "", nil, false
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return "", nil, false
		}
		gvk = gvks[0]
	}
	if !scheme.Scheme.Recognizes(gvk) {
		return "", nil, false
	}
	m, isProto := withoutManagedFields(obj).(protoMarshaler)
	if !isProto {
		return "", nil, false
	}
	b, err := m.Marshal()
	if err != nil {
		return "", nil, false
	}
	return protoKindOf(gvk), b, true
}

// withoutManagedFields is obj, or a shallow copy of it with its
// managedFields dropped: the copy shares everything else with obj and is
// only read.
func withoutManagedFields(obj runtime.Object) runtime.Object {
	acc, err := meta.Accessor(obj)
	if err != nil || len(acc.GetManagedFields()) == 0 {
		return obj
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return obj
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	cp, ok := c.Interface().(runtime.Object)
	if !ok {
		return obj
	}
	if cacc, err := meta.Accessor(cp); err == nil {
		cacc.SetManagedFields(nil)
	}
	return cp
}

// Objects decodes the record's object (an event's) or items (a page's),
// however they were stored, into the generic form JSON gives them, with
// apiVersion and kind set.
func (r Record) Objects() ([]map[string]any, error) {
	if r.ProtoKind == "" {
		raws := r.Items
		if r.Kind != KindList {
			raws = nil
			if r.Object != nil {
				raws = []json.RawMessage{r.Object}
			}
		}
		out := make([]map[string]any, 0, len(raws))
		for _, raw := range raws {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	typed, err := r.TypedObjects()
	if err != nil {
		return nil, err
	}
	gvk, _ := r.TypedKind()
	out := make([]map[string]any, 0, len(typed))
	for _, obj := range typed {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
		out = append(out, m)
	}
	return out, nil
}

// TypedKind is the kind of the record's protobuf objects; ok is false
// when they are stored as JSON (or there are none).
func (r Record) TypedKind() (gvk schema.GroupVersionKind, ok bool) {
	if r.ProtoKind == "" {
		return gvk, false
	}
	gvk, err := parseProtoKind(r.ProtoKind)
	return gvk, err == nil
}

// TypedObjects decodes the record's protobuf objects into the API's Go
// types, as a typed informer holds them (TypeMeta left empty, as client-go
// leaves it). Records stored as JSON have none.
func (r Record) TypedObjects() ([]runtime.Object, error) {
	gvk, ok := r.TypedKind()
	if !ok {
		if r.ProtoKind != "" {
			_, err := parseProtoKind(r.ProtoKind)
			return nil, err
		}
		return nil, nil
	}
	out := make([]runtime.Object, 0, len(r.Proto))
	for _, b := range r.Proto {
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			return nil, fmt.Errorf("objects of kind %s: %w", r.ProtoKind, err)
		}
		if err := unmarshalProto(obj, b); err != nil {
			return nil, fmt.Errorf("an object of kind %s does not decode: %w", r.ProtoKind, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// protoKindOf is gvk as Record.ProtoKind names it: "apiVersion/kind".
func protoKindOf(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + "/" + gvk.Kind
}

// parseProtoKind reads "apps/v1/Deployment" or "v1/Pod".
func parseProtoKind(s string) (schema.GroupVersionKind, error) {
	// The inverse of protoKindOf.
	i := strings.LastIndex(s, "/")
	if i <= 0 || i == len(s)-1 {
		return schema.GroupVersionKind{}, fmt.Errorf("%q names no apiVersion and kind", s)
	}
	gv, err := schema.ParseGroupVersion(s[:i])
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(s[i+1:]), nil
}
