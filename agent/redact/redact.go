// Package redact renders cached objects for people and for every other
// output (recordings, the agent, logs): managedFields left out and, by the
// process's Policy, every value of a secret resource's objects replaced by
// its size, so no output ever shows secret data. Whether an object is
// secret is decided by the resource its informer watches, not by its Go
// type: a metadata-only Secret is a PartialObjectMetadata. It imports no UI.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// Value is what a secret value of n bytes is replaced with.
func Value(n int) string { return fmt.Sprintf("<redacted, %d bytes>", n) }

// Map is Current().Map.
func Map(resource string, obj any) (map[string]any, []byte, error) {
	return Current().Map(resource, obj)
}

// YAML is Current().YAML.
func YAML(resource string, obj any) string { return Current().YAML(resource, obj) }

// Secret is Current().Secret.
func Secret(resource string, obj any) bool { return Current().Secret(resource, obj) }

// Map returns obj, an object of resource ("" when unknown), as generic
// JSON with managedFields removed and redacted by p. ok is false when obj
// is not a JSON object (a string, a tombstone key); raw is then its JSON
// as it is.
func (p Policy) Map(resource string, obj any) (m map[string]any, raw []byte, err error) {
	raw, err = json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, raw, nil
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	typeMeta(obj, m)
	kind, _ := m["kind"].(string)
	if kind == "" {
		kind = Kind(obj)
	}
	p.redactMap(resource, kind, m)
	return m, nil, nil
}

// typeMeta gives m the apiVersion and kind a typed object lost on its way
// into an informer's cache (client-go's decoder clears them), from
// client-go's scheme, so what is shown can go back to kubectl apply.
func typeMeta(obj any, m map[string]any) {
	if k, _ := m["kind"].(string); k != "" {
		return
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	kinds, _, err := scheme.Scheme.ObjectKinds(ro)
	if err != nil || len(kinds) == 0 {
		return
	}
	m["apiVersion"], m["kind"] = kinds[0].GroupVersion().String(), kinds[0].Kind
}

// YAML renders obj as Map does, as YAML; an object that cannot be
// rendered becomes a comment saying why.
func (p Policy) YAML(resource string, obj any) string {
	m, raw, err := p.Map(resource, obj)
	if err != nil {
		return fmt.Sprintf("# cannot render this object: %v\n", err)
	}
	if m == nil {
		out, _ := yaml.JSONToYAML(raw)
		return string(out)
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Sprintf("# cannot render this object: %v", err)
	}
	return string(out)
}

// Secret reports whether obj, an object of resource ("" when unknown),
// holds secret data, as Decide finds: its resource is secret, it says it
// is a Secret (typed, unstructured or by its TypeMeta) whatever informer
// holds it, or a whole-object annotation says it copies one.
func (p Policy) Secret(resource string, obj any) bool { return p.DecideObject(resource, obj).Secret }

// redactMap redacts one object's JSON in place, as Decide finds from what
// the JSON says. A secret object keeps only what names it (apiVersion,
// kind, metadata; a Secret's type and immutable too) and, of its maps of
// strings, the keys; its whole-object annotations go by size, as do those
// of any object that do or may copy a secret object.
func (p Policy) redactMap(resource, kind string, m map[string]any) {
	v := p.Decide(resource, kind, annotationsOf(m))
	if v.Secret {
		for field, val := range m {
			if !hiddenField(kind, field) {
				continue
			}
			m[field] = hideValue(val, kind == "Secret" && field == "data")
		}
	}
	if !v.hidesAnnotations {
		return
	}
	md, _ := m["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	for k, val := range ann {
		if s, ok := val.(string); ok && v.HideAnnotation(k, s) {
			ann[k] = Value(len(s))
		}
	}
}

// hiddenField reports whether a secret object's top-level field can hold
// secret data.
func hiddenField(kind, field string) bool {
	switch field {
	case "apiVersion", "kind", "metadata":
		return false
	case "type", "immutable":
		return kind != "Secret"
	}
	return true
}

// hideValue replaces a value by its size; a map of strings keeps its keys
// (a Secret's data keys name what it holds, not its values).
func hideValue(v any, base64Values bool) any {
	if mm, ok := v.(map[string]any); ok {
		out := make(map[string]any, len(mm))
		for k, vv := range mm {
			s, isString := vv.(string)
			switch {
			case !isString:
				out[k] = Value(jsonSize(vv))
			case base64Values:
				out[k] = Value(DataSize(s))
			default:
				out[k] = Value(len(s))
			}
		}
		return out
	}
	if s, ok := v.(string); ok {
		return Value(len(s))
	}
	return Value(jsonSize(v))
}

func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// copiedKind is the kind a whole-object annotation's value names, "" when
// it names none or cannot be read.
func copiedKind(value string) string {
	var head struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal([]byte(value), &head) != nil {
		return ""
	}
	return head.Kind
}

// HidePath reports whether a changed field at path (dotted, as
// "data.password" or "metadata.annotations.<key>") of an object of kind
// must be shown by size only: every field but what names a secret object,
// and the whole-object annotations of any object (a cut copy of a whole
// object says nothing useful and may copy a Secret).
func (p Policy) HidePath(secret bool, kind, path string) bool {
	if key, ok := strings.CutPrefix(path, "metadata.annotations."); ok && p.WholeObjectAnnotation(key) {
		return true
	}
	if !secret {
		return false
	}
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	return hiddenField(kind, top)
}

// Kind names an object's kind: from its TypeMeta when set, else from its
// Go type (informers usually strip TypeMeta from typed objects).
func Kind(obj any) string {
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() != "" {
		return t.GetKind()
	}
	name := fmt.Sprintf("%T", obj)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// DataSize is the size of a Secret's data value as JSON carries it
// (base64): the bytes it stands for.
func DataSize(s string) int {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return len(b)
	}
	return len(s)
}

// Needed reports whether Map would change obj, an object of resource,
// beyond dropping managedFields (Verdict.Needed). An object without
// metadata always needs it.
func (p Policy) Needed(resource string, obj any) bool {
	if _, err := meta.Accessor(obj); err != nil {
		return true
	}
	return p.DecideObject(resource, obj).Needed()
}
