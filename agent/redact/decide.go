package redact

import (
	"iter"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
)

// Verdict is what every output must hide of one object, as Decide found it.
type Verdict struct {
	// Secret: every field but what names the object is shown by size.
	Secret bool
	// hidesAnnotations: at least one whole-object annotation is shown by
	// size.
	hidesAnnotations bool
	p                Policy
	resource         string
}

// Decide is the one decision behind every output of an object: the Store
// view and its table, --json, mutation reports, recordings (Go objects
// and the wire's bytes alike), the agent and logged bodies. Each gives it
// what it has of the object: resource, its informer's ("" when unknown);
// kind, the object's own; annotations, its metadata's. An object is secret
// when its resource or kind is, or when a whole-object annotation says it
// copies an object of a secret kind (a ConfigMap once applied as a Secret
// of the same name carries that Secret in its last-applied annotation).
func (p Policy) Decide(resource, kind string, annotations iter.Seq2[string, string]) Verdict {
	v := Verdict{p: p, resource: resource, Secret: (resource != "" && p.SecretResource(resource)) || p.kinds[kind]}
	if annotations != nil {
		v.Secret, v.hidesAnnotations = p.judgeCopies(resource, v.Secret, annotations)
	}
	return v
}

// judgeCopies is Decide's look at the whole-object annotations, apart so
// that what its loop over an iterator moves to the heap is moved only
// for objects that have annotations.
func (p Policy) judgeCopies(resource string, secret bool, annotations iter.Seq2[string, string]) (isSecret, hides bool) {
	whole := false
	for k, val := range annotations {
		if !p.WholeObjectAnnotation(k) {
			continue
		}
		whole = true
		if secret {
			continue
		}
		copied, hide := p.copies(resource, val)
		secret = secret || copied
		hides = hides || hide
	}
	return secret, hides || (secret && whole)
}

// DecideObject is Decide for a Go object: its kind from its TypeMeta or
// Go type, its annotations from its metadata.
func (p Policy) DecideObject(resource string, obj any) Verdict {
	var ann map[string]string
	if acc, err := meta.Accessor(obj); err == nil {
		ann = acc.GetAnnotations()
	}
	return p.Decide(resource, Kind(obj), maps.All(ann))
}

// Needed reports whether an output must change the object beyond dropping
// managedFields: writers that copy objects as they are (a recording's
// protobuf) keep that fast path only when it is false.
func (v Verdict) Needed() bool { return v.Secret || v.hidesAnnotations }

// HideAnnotation reports whether the object's annotation key, holding
// value, is shown by size: a whole-object annotation on a secret object,
// or one that may copy a secret object (see Policy.copies).
func (v Verdict) HideAnnotation(key, value string) bool {
	if !v.p.WholeObjectAnnotation(key) {
		return false
	}
	if v.Secret {
		return true
	}
	_, hide := v.p.copies(v.resource, value)
	return hide
}

// TableCell is what one cell of the table the API server prints for the
// object (column is the server's name, in any case) may show: the cell,
// unless the object is secret and the column is not known to print
// metadata only; then its size. A Secret's table prints its type and the
// number of its data keys, never a value.
func (v Verdict) TableCell(column, cell string) string {
	if !v.Secret || cell == "" {
		return cell
	}
	switch strings.ToLower(column) {
	case "name", "namespace", "age":
		return cell
	case "type", "data":
		if strings.EqualFold(v.resource, "secrets") {
			return cell
		}
	}
	return Value(len(cell))
}

// copies reports what a whole-object annotation's value says of the
// object it is on: secret, it copies an object of a secret kind; hide,
// the value is shown by size, because it is such a copy or because, the
// object's resource being unknown, a value naming no kind (compressed,
// cut, a diff) may copy anything.
func (p Policy) copies(resource, value string) (secret, hide bool) {
	if resource != "" && !p.mayNameSecretKind(value) {
		// Nearly every value: no JSON to decode.
		return false, false
	}
	kind := copiedKind(value)
	if p.kinds[kind] {
		return true, true
	}
	return false, kind == "" && resource == ""
}

// mayNameSecretKind reports whether JSON text could decode to a secret
// kind anywhere: it holds one quoted, or an escape that could spell one.
func (p Policy) mayNameSecretKind(value string) bool {
	if strings.IndexByte(value, '\\') >= 0 {
		return true
	}
	for _, q := range p.quotedKinds {
		if strings.Contains(value, q) {
			return true
		}
	}
	return false
}

// annotationsOf is a generic object's metadata.annotations that are
// strings, as Decide reads them.
func annotationsOf(m map[string]any) iter.Seq2[string, string] {
	md, _ := m["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	return func(yield func(string, string) bool) {
		for k, v := range ann {
			if s, ok := v.(string); ok && !yield(k, s) {
				return
			}
		}
	}
}
