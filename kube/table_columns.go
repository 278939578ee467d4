package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// learnColumns asks the server for the resource's columns when the view
// has no object to ask a row of (an empty cache): one list of at most one
// object, printed as a Table without its objects, where the informer
// lists. kubectl get prints its header from the same definitions. On an
// error the view keeps its own columns.
func (t *tables) learnColumns(ctx context.Context, tb *tableOf) error {
	tb.mu.Lock()
	known := tb.columns != nil
	tb.mu.Unlock()
	if known {
		return nil
	}
	c, err := tb.restClient(t.config)
	if err != nil {
		return err
	}
	ns := ""
	if t.namespaceOf != nil {
		ns = t.namespaceOf(tb.informer)
	}
	obj, err := c.Get().NamespaceIfScoped(ns, tb.scoped && ns != "").Resource(tb.gvr.Resource).
		Param("limit", "1").Param("includeObject", string(metav1.IncludeNone)).
		SetHeader("Accept", tableAccept).Do(ctx).Get()
	if err != nil {
		return err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if gvk := obj.GetObjectKind().GroupVersionKind(); !ok || gvk != metav1.SchemeGroupVersion.WithKind("Table") {
		return notATable{what: gvk.Kind}
	}
	var table metav1.Table
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &table); err != nil {
		return fmt.Errorf("a Table informtop cannot read: %w", err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.columns == nil && len(table.ColumnDefinitions) > 0 {
		tb.columns = table.ColumnDefinitions
	}
	return nil
}
