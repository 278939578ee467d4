package cluster

import (
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// Selector narrows what a ListerWatcher sees, like the namespace and the
// selectors of a client's request. Empty fields select everything.
// Field selectors support metadata.name and metadata.namespace on every
// kind, plus spec.nodeName, spec.serviceAccountName, status.phase and
// status.podIP on pods and type on secrets.
type Selector struct {
	Namespace     string
	LabelSelector string
	FieldSelector string
}

// filter is a parsed Selector. Selectors from the ListerWatcher and from the
// request options are ANDed. Immutable once built.
type filter struct {
	kind      *kind
	namespace string
	labels    []labels.Selector
	fields    []fields.Selector
}

// parseFilter parses a selector for k; errors are 400 Bad Request, as the
// API server answers unparsable or unsupported selectors.
func parseFilter(k *kind, namespace, labelSel, fieldSel string) (filter, error) {
	f := filter{kind: k, namespace: namespace}
	if labelSel != "" {
		ls, err := labels.Parse(labelSel)
		if err != nil {
			return filter{}, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
		f.labels = append(f.labels, ls)
	}
	if fieldSel != "" {
		fs, err := fields.ParseSelector(fieldSel)
		if err != nil {
			return filter{}, apierrors.NewBadRequest(err.Error())
		}
		supported := k.supportedFields()
		for _, r := range fs.Requirements() {
			if !slices.Contains(supported, r.Field) {
				return filter{}, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s (supported: %s)",
					r.Field, strings.Join(supported, ", ")))
			}
		}
		f.fields = append(f.fields, fs)
	}
	return f, nil
}

// and adds a request's selectors to f. A request names no namespace of its
// own (that is the ListerWatcher's), so f's namespace stays.
func (f filter) and(req filter) filter {
	out := f
	out.labels = append(slices.Clip(f.labels), req.labels...)
	out.fields = append(slices.Clip(f.fields), req.fields...)
	return out
}

// onlyNamespace reports whether f selects by namespace alone, the case in
// which a list can report how many items remain.
func (f filter) onlyNamespace() bool { return len(f.labels) == 0 && len(f.fields) == 0 }

func (f filter) matches(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if f.namespace != "" && m.GetNamespace() != f.namespace {
		return false
	}
	if len(f.labels) > 0 {
		set := labels.Set(m.GetLabels())
		for _, s := range f.labels {
			if !s.Matches(set) {
				return false
			}
		}
	}
	if len(f.fields) > 0 {
		set := f.kind.fields(obj)
		for _, s := range f.fields {
			if !s.Matches(set) {
				return false
			}
		}
	}
	return true
}
