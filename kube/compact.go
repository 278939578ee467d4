package kube

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"time"
	"unique"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// compactMeta is how --metadata-only caches an object: every field of its
// ObjectMeta, in about a quarter of PartialObjectMetadata's memory. Labels
// and annotations, two Go maps of ~300 B each even when small, become
// sorted key/value slices of interned strings (a cluster repeats the same
// keys and most values across thousands of objects), the UID is kept as
// its 16 bytes, and the fields most objects leave empty live in rest.
//
// Its accessors return copies, so a handler that changes what it was
// given cannot change the cache; setters replace whole slices, never
// write into them, so DeepCopyObject may share them. Like every cached
// object it is not safe for concurrent writes.
type compactMeta struct {
	typ       unique.Handle[metav1.TypeMeta]
	namespace unique.Handle[string]
	name      string
	rv        string
	uid       uuid.UUID // the zero UUID when the UID is empty or not canonical (then it is in rest)
	created   int64     // UnixNano; 0 when zero or not representable (then it is in rest)
	// labels and annotations are key, value, key, value…, sorted by key.
	labels      []unique.Handle[string]
	annotations []unique.Handle[string]
	// rest holds the fields that did not fit above; nil when there are none.
	rest *metav1.ObjectMeta
}

var (
	_ metav1.Object  = (*compactMeta)(nil)
	_ runtime.Object = (*compactMeta)(nil)
)

// compactTransform is --metadata-only's transform: it turns each
// PartialObjectMetadata into a compactMeta, dropping managedFields unless
// they are kept. Anything else (a tombstone, an object already compact)
// passes through.
func compactTransform(keepManagedFields bool) func(any) (any, error) {
	return func(obj any) (any, error) {
		p, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			return obj, nil
		}
		if !keepManagedFields {
			p.ManagedFields = nil
		}
		return newCompactMeta(p), nil
	}
}

func newCompactMeta(p *metav1.PartialObjectMetadata) *compactMeta {
	c := &compactMeta{
		typ:       unique.Make(p.TypeMeta),
		namespace: unique.Make(p.Namespace),
		name:      p.Name,
		rv:        p.ResourceVersion,
	}
	c.SetUID(p.UID)
	c.SetCreationTimestamp(p.CreationTimestamp)
	c.labels = packStrings(p.Labels)
	c.annotations = packStrings(p.Annotations)
	rest := p.ObjectMeta
	rest.Name, rest.Namespace, rest.ResourceVersion, rest.Labels, rest.Annotations = "", "", "", nil, nil
	rest.UID, rest.CreationTimestamp = "", metav1.Time{}
	if c.uid == (uuid.UUID{}) {
		rest.UID = p.UID
	}
	if c.created == 0 {
		rest.CreationTimestamp = p.CreationTimestamp
	}
	c.setRest(rest)
	return c
}

// setRest keeps rest only when it holds something.
func (c *compactMeta) setRest(rest metav1.ObjectMeta) {
	if isEmptyMeta(&rest) {
		c.rest = nil
		return
	}
	c.rest = &rest
}

func isEmptyMeta(m *metav1.ObjectMeta) bool { return reflect.DeepEqual(*m, metav1.ObjectMeta{}) }

// editRest returns rest for a setter, allocating it on first use.
func (c *compactMeta) editRest(set func(*metav1.ObjectMeta)) {
	var rest metav1.ObjectMeta
	if c.rest != nil {
		rest = *c.rest
	}
	set(&rest)
	c.setRest(rest)
}

func packStrings(m map[string]string) []unique.Handle[string] {
	if len(m) == 0 {
		return nil
	}
	out := make([]unique.Handle[string], 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, unique.Make(k), unique.Make(m[k]))
	}
	return out
}

func unpackStrings(s []unique.Handle[string]) map[string]string {
	if len(s) == 0 {
		return nil
	}
	m := make(map[string]string, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		m[s[i].Value()] = s[i+1].Value()
	}
	return m
}

// toPartial rebuilds the object as the server sent it (managedFields
// aside, when they were dropped).
func (c *compactMeta) toPartial() *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{TypeMeta: c.typ.Value()}
	if c.rest != nil {
		p.ObjectMeta = *c.rest.DeepCopy()
	}
	p.Name, p.Namespace, p.ResourceVersion = c.name, c.namespace.Value(), c.rv
	p.UID, p.CreationTimestamp = c.GetUID(), c.GetCreationTimestamp()
	p.Labels, p.Annotations = c.GetLabels(), c.GetAnnotations()
	return p
}

// MarshalJSON writes the object as PartialObjectMetadata, so that it reads
// the same in the store view as the object the server sent.
func (c *compactMeta) MarshalJSON() ([]byte, error) { return json.Marshal(c.toPartial()) }

// DeepCopyObject shares the interned slices, which setters never write into.
func (c *compactMeta) DeepCopyObject() runtime.Object {
	out := *c
	if c.rest != nil {
		out.rest = c.rest.DeepCopy()
	}
	return &out
}

func (c *compactMeta) GetObjectKind() schema.ObjectKind { return c }

func (c *compactMeta) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	t := c.typ.Value()
	t.SetGroupVersionKind(gvk)
	c.typ = unique.Make(t)
}

func (c *compactMeta) GroupVersionKind() schema.GroupVersionKind {
	t := c.typ.Value()
	return t.GroupVersionKind()
}

func (c *compactMeta) GetNamespace() string       { return c.namespace.Value() }
func (c *compactMeta) SetNamespace(ns string)     { c.namespace = unique.Make(ns) }
func (c *compactMeta) GetName() string            { return c.name }
func (c *compactMeta) SetName(name string)        { c.name = name }
func (c *compactMeta) GetResourceVersion() string { return c.rv }
func (c *compactMeta) SetResourceVersion(v string) {
	c.rv = v
}

func (c *compactMeta) GetUID() types.UID {
	if c.uid != (uuid.UUID{}) {
		return types.UID(c.uid.String())
	}
	if c.rest != nil {
		return c.rest.UID
	}
	return ""
}

// SetUID keeps a canonical UUID (what API servers generate) as 16 bytes.
func (c *compactMeta) SetUID(uid types.UID) {
	if u, err := uuid.Parse(string(uid)); err == nil && u.String() == string(uid) && u != (uuid.UUID{}) {
		c.uid = u
		c.editRest(func(m *metav1.ObjectMeta) { m.UID = "" })
		return
	}
	c.uid = uuid.UUID{}
	c.editRest(func(m *metav1.ObjectMeta) { m.UID = uid })
}

func (c *compactMeta) GetCreationTimestamp() metav1.Time {
	if c.created != 0 {
		return metav1.NewTime(time.Unix(0, c.created).Local())
	}
	if c.rest != nil {
		return c.rest.CreationTimestamp
	}
	return metav1.Time{}
}

// SetCreationTimestamp keeps a time UnixNano can represent as an int64.
func (c *compactMeta) SetCreationTimestamp(t metav1.Time) {
	if n := t.UnixNano(); !t.IsZero() && n != 0 && time.Unix(0, n).Equal(t.Time) {
		c.created = n
		c.editRest(func(m *metav1.ObjectMeta) { m.CreationTimestamp = metav1.Time{} })
		return
	}
	c.created = 0
	c.editRest(func(m *metav1.ObjectMeta) { m.CreationTimestamp = t })
}

func (c *compactMeta) GetLabels() map[string]string       { return unpackStrings(c.labels) }
func (c *compactMeta) SetLabels(m map[string]string)      { c.labels = packStrings(m) }
func (c *compactMeta) GetAnnotations() map[string]string  { return unpackStrings(c.annotations) }
func (c *compactMeta) SetAnnotations(m map[string]string) { c.annotations = packStrings(m) }

// The rarely set fields, kept in rest.

func (c *compactMeta) getRest() *metav1.ObjectMeta {
	if c.rest == nil {
		return &metav1.ObjectMeta{}
	}
	return c.rest
}

func (c *compactMeta) GetGenerateName() string { return c.getRest().GenerateName }
func (c *compactMeta) SetGenerateName(name string) {
	c.editRest(func(m *metav1.ObjectMeta) { m.GenerateName = name })
}
func (c *compactMeta) GetGeneration() int64 { return c.getRest().Generation }
func (c *compactMeta) SetGeneration(g int64) {
	c.editRest(func(m *metav1.ObjectMeta) { m.Generation = g })
}

//lint:ignore SA1019 metav1.Object still has it, and so must compactMeta
func (c *compactMeta) GetSelfLink() string { return c.getRest().SelfLink }

func (c *compactMeta) SetSelfLink(link string) {
	//lint:ignore SA1019 metav1.Object still has it, and so must compactMeta
	c.editRest(func(m *metav1.ObjectMeta) { m.SelfLink = link })
}
func (c *compactMeta) GetDeletionTimestamp() *metav1.Time {
	return c.getRest().DeletionTimestamp.DeepCopy()
}
func (c *compactMeta) SetDeletionTimestamp(t *metav1.Time) {
	c.editRest(func(m *metav1.ObjectMeta) { m.DeletionTimestamp = t.DeepCopy() })
}
func (c *compactMeta) GetDeletionGracePeriodSeconds() *int64 {
	if s := c.getRest().DeletionGracePeriodSeconds; s != nil {
		v := *s
		return &v
	}
	return nil
}
func (c *compactMeta) SetDeletionGracePeriodSeconds(s *int64) {
	c.editRest(func(m *metav1.ObjectMeta) {
		m.DeletionGracePeriodSeconds = nil
		if s != nil {
			v := *s
			m.DeletionGracePeriodSeconds = &v
		}
	})
}
func (c *compactMeta) GetFinalizers() []string { return slices.Clone(c.getRest().Finalizers) }
func (c *compactMeta) SetFinalizers(f []string) {
	c.editRest(func(m *metav1.ObjectMeta) { m.Finalizers = slices.Clone(f) })
}
func (c *compactMeta) GetOwnerReferences() []metav1.OwnerReference {
	return c.getRest().DeepCopy().OwnerReferences
}
func (c *compactMeta) SetOwnerReferences(refs []metav1.OwnerReference) {
	m := metav1.ObjectMeta{OwnerReferences: refs}
	c.editRest(func(r *metav1.ObjectMeta) { r.OwnerReferences = m.DeepCopy().OwnerReferences })
}
func (c *compactMeta) GetManagedFields() []metav1.ManagedFieldsEntry {
	return c.getRest().DeepCopy().ManagedFields
}
func (c *compactMeta) SetManagedFields(f []metav1.ManagedFieldsEntry) {
	m := metav1.ObjectMeta{ManagedFields: f}
	c.editRest(func(r *metav1.ObjectMeta) { r.ManagedFields = m.DeepCopy().ManagedFields })
}
