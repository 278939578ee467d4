package replay

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/recording"
)

func listKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// typedPage is a recorded page as the typed list its kind has.
func (lw *listerWatcher) typedPage(r recording.Record) (runtime.Object, error) {
	list, err := scheme.Scheme.New(listKind(*lw.typed))
	if err != nil {
		return nil, err
	}
	if err := meta.SetList(list, r.Decoded()); err != nil {
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
