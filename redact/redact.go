// Package redact renders cached objects for people and for the debug
// endpoint: managedFields left out and every Secret value replaced by its
// size, so neither the dashboard nor an agent ever shows secret data.
// It imports no UI.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Value is what a secret value of n bytes is replaced with.
func Value(n int) string { return fmt.Sprintf("<redacted, %d bytes>", n) }

// lastApplied is the kubectl annotation that carries a copy of the whole
// object as applied, Secret data included.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Map returns obj as generic JSON with managedFields removed and, for a
// Secret, data, stringData and the last-applied annotation redacted. ok is
// false when obj is not a JSON object (a string, a tombstone key); raw is
// then its JSON as it is.
func Map(obj any) (m map[string]any, raw []byte, err error) {
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
	if isSecret(obj, m) {
		secret(m)
	}
	return m, nil, nil
}

// YAML renders obj as Map does, as YAML; an object that cannot be
// rendered becomes a comment saying why.
func YAML(obj any) string {
	m, raw, err := Map(obj)
	if err != nil {
		return fmt.Sprintf("# cannot render this object: %v\n%#v", err, obj)
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

// IsSecret reports whether obj is a Secret, typed or unstructured.
func IsSecret(obj any) bool { return isSecret(obj, nil) }

// SecretPath reports whether a field at path (dotted, as
// "data.password" or "metadata.annotations.<key>") of a Secret can hold
// secret data, so its values must not be shown.
func SecretPath(path string) bool {
	return path == "data" || path == "stringData" ||
		strings.HasPrefix(path, "data.") || strings.HasPrefix(path, "stringData.") ||
		path == "metadata.annotations."+lastApplied
}

func isSecret(obj any, m map[string]any) bool {
	switch o := obj.(type) {
	case *corev1.Secret, corev1.Secret:
		return true
	case *unstructured.Unstructured:
		return o.GetKind() == "Secret"
	}
	if kind, _ := m["kind"].(string); kind == "Secret" {
		return true
	}
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() == "Secret" {
		return true
	}
	return false
}

// DataSize is the size of a Secret's data value as JSON carries it
// (base64): the bytes it stands for.
func DataSize(s string) int {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return len(b)
	}
	return len(s)
}

// secret replaces every value that can hold secret data by its size.
func secret(m map[string]any) {
	if data, ok := m["data"].(map[string]any); ok {
		for k, v := range data {
			s, _ := v.(string)
			data[k] = Value(DataSize(s))
		}
	}
	if data, ok := m["stringData"].(map[string]any); ok {
		for k, v := range data {
			s, _ := v.(string)
			data[k] = Value(len(s))
		}
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if s, ok := ann[lastApplied].(string); ok {
				ann[lastApplied] = Value(len(s))
			}
		}
	}
}
