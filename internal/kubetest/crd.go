package kubetest

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// WidgetsGVR is the resource of the CRD Widgets installs.
var WidgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// Widgets installs a namespaced CRD, widgets.example.com (kind Widget,
// singular widget, short names wdg and wg, any fields, and a printer
// column PASSWORD reading spec.password, as a CRD's columns may read what
// --redact must hide), once per cluster, and creates one widget per object
// given in namespace ns ("metadata.name" is required). It returns once the
// API server serves the CRD and the widgets exist.
func (c *Cluster) Widgets(t testing.TB, ns string, widgets ...map[string]any) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": []any{"wdg", "wg"}},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema":                   map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"additionalPrinterColumns": []any{map[string]any{"name": "Password", "type": "string", "jsonPath": ".spec.password"}}}},
		},
	}}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("kubetest: creating the widgets CRD: %v", err)
	}
	for _, w := range widgets {
		obj := &unstructured.Unstructured{Object: w}
		obj.SetAPIVersion("example.com/v1")
		obj.SetKind("Widget")
		// The CRD is served a moment after it is created.
		for {
			_, err := dyn.Resource(WidgetsGVR).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("kubetest: the widgets CRD is not served after 30s: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
