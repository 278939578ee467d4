package kube

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// transform builds the informer's transform from the options: managedFields
// stripped unless kept, the last-applied annotation stripped when asked,
// --metadata-only's compaction last. Each stripping records, on a sample of
// objects, how much it removed, for the memory view. nil when there is
// nothing to do.
func transform(inf *local.Informer, o Options) cache.TransformFunc {
	var managed, applied *local.TransformMeter
	if !o.KeepManagedFields {
		managed = inf.MeterTransform(source.TransformStripManagedFields)
	}
	if o.StripLastApplied {
		applied = inf.MeterTransform(source.TransformStripLastApplied)
	}
	if managed == nil && applied == nil && !o.MetadataOnly {
		return nil
	}
	compact := compactTransform(true) // managedFields are dealt with here
	return func(obj any) (any, error) {
		if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			return obj, nil
		}
		if a, err := meta.Accessor(obj); err == nil {
			if managed != nil {
				stripManaged(a, managed)
			}
			if applied != nil {
				stripLastApplied(a, applied)
			}
		}
		if o.MetadataOnly {
			return compact(obj)
		}
		return obj, nil
	}
}

// stripManaged removes metadata.managedFields: 2–4 KB of every object on a
// real cluster that informtop never shows.
func stripManaged(a metav1.Object, m *local.TransformMeter) {
	f := a.GetManagedFields()
	if m.Sample(a.GetResourceVersion()) {
		n := 0
		if len(f) > 0 {
			n = memberBytes("managedFields", f)
		}
		m.Removed(n)
	}
	if f != nil {
		a.SetManagedFields(nil)
	}
}

// stripLastApplied removes the kubectl.kubernetes.io/last-applied-configuration
// annotation, a whole copy of the applied object. The annotations map is
// replaced, not edited: the object may be shared with whoever decoded it.
func stripLastApplied(a metav1.Object, m *local.TransformMeter) {
	ann := a.GetAnnotations()
	v, ok := ann[redact.LastApplied]
	if m.Sample(a.GetResourceVersion()) {
		n := 0
		if ok {
			n = memberBytes(redact.LastApplied, v)
		}
		m.Removed(n)
	}
	if !ok {
		return
	}
	rest := make(map[string]string, len(ann)-1)
	for k, val := range ann {
		if k != redact.LastApplied {
			rest[k] = val
		}
	}
	if len(rest) == 0 {
		rest = nil
	}
	a.SetAnnotations(rest)
}

// memberBytes is the size of `"key":value,` in the object's JSON.
func memberBytes(key string, value any) int {
	k, _ := json.Marshal(key)
	v, err := json.Marshal(value)
	if err != nil {
		return 0
	}
	return len(k) + len(v) + 2
}
