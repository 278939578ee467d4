package replay

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/recording"
)

// typedKind is the kind of every object recorded for one informer when
// all are in protobuf and of that kind: the replay then serves typed
// objects, as the live informer held them, and skips a conversion. ok is
// false when any is JSON (Secrets, custom resources) or kinds differ.
func typedKind(cs []*call) (schema.GroupVersionKind, bool) {
	kind := ""
	consider := func(r recording.Record) bool {
		if r.ProtoKind == "" {
			return r.Object == nil && len(r.Items) == 0
		}
		if kind == "" {
			kind = r.ProtoKind
		}
		return kind == r.ProtoKind
	}
	for _, c := range cs {
		if c.rec.Kind == recording.KindList && !consider(c.rec) {
			return schema.GroupVersionKind{}, false
		}
		for _, ev := range c.events {
			if ev.Type != string(watch.Error) && !consider(ev) {
				return schema.GroupVersionKind{}, false
			}
		}
	}
	if kind == "" {
		return schema.GroupVersionKind{}, false
	}
	gvk, ok := (recording.Record{ProtoKind: kind}).TypedKind()
	if !ok || !scheme.Scheme.Recognizes(gvk) || !scheme.Scheme.Recognizes(listKind(gvk)) {
		return schema.GroupVersionKind{}, false
	}
	return gvk, true
}

func listKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// exampleObject is what the informer's reflector expects.
func (lw *listerWatcher) exampleObject() runtime.Object {
	if lw.typed == nil {
		return &unstructured.Unstructured{}
	}
	obj, err := scheme.Scheme.New(*lw.typed)
	if err != nil { // typedKind checked it
		return &unstructured.Unstructured{}
	}
	return obj
}

// typedPage is a recorded page as the typed list its kind has.
func (lw *listerWatcher) typedPage(r recording.Record) (runtime.Object, error) {
	list, err := scheme.Scheme.New(listKind(*lw.typed))
	if err != nil {
		return nil, err
	}
	items, err := r.TypedObjects()
	if err != nil {
		return nil, err
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, err
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("a %s has no list metadata: %w", listKind(*lw.typed).Kind, err)
	}
	acc.SetResourceVersion(r.RV)
	acc.SetContinue(r.Continue)
	return list, nil
}
