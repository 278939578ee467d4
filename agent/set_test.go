package agent

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// An informer built after the handler (controller-runtime builds its
// cache's informers on first use) is served from then on: in the frame,
// its events, its store and /metrics.
func TestInformersBuiltAfterTheHandlerAreServed(t *testing.T) {
	set := NewSet()
	early := podInformer(set, newTestSource(t), "early")
	start(t, early)
	srv := server(t, set, Options{})

	var fr api.Frame
	servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Snapshots) != 1 || fr.Snapshots[0].Name != "early" {
		t.Fatalf("before the second informer: snapshots %+v", fr.Snapshots)
	}
	cursor := fr.Next

	late := podInformer(set, newTestSource(t, pod("a"), pod("b")), "late")
	start(t, late)
	waitfor.True(t, "the late informer in a frame, synced, with its list in the events", func() bool {
		servetest.GetJSON(t, srv, fmt.Sprintf("%s?cursor=%d", api.PathFrame, cursor), &fr)
		listed := false
		for _, e := range fr.Events {
			listed = listed || (e.Informer == "late" && e.Count == 2)
		}
		return len(fr.Snapshots) == 2 && fr.Snapshots[1].Name == "late" && fr.Snapshots[1].Synced && listed
	})
	if fr.Snapshots[0].Name != "early" {
		t.Errorf("the informers are not served in the order built: %+v", fr.Snapshots)
	}

	var entries api.StoreEntries
	servetest.GetJSON(t, srv, api.PathEntries+"?informer=late", &entries)
	if len(entries.Entries) != 2 {
		t.Errorf("late's entries = %+v", entries.Entries)
	}
	waitfor.True(t, "late's two objects in /metrics", func() bool {
		status, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
		if status != http.StatusOK {
			t.Fatalf("/metrics: %d %s", status, body)
		}
		mfs := servetest.Scrape(t, body)
		return servetest.Value(t, mfs, "informtop_informer_store_objects", map[string]string{"name": "late", "resource": "pods"}) == 2 &&
			servetest.Value(t, mfs, "informtop_informer_synced", map[string]string{"name": "late"}) == 1
	})
}

// Clients tell informers apart by name: a second informer of one
// resource, or of a name already taken, gets " #2".
func TestSetNamesEveryInformerOnce(t *testing.T) {
	var set Set // the zero Set is usable
	src := newTestSource(t)
	names := []string{
		NewInformer(&set)(src, &corev1.Pod{}, 0, cache.Indexers{}).(*watched).name,
		NewInformer(&set)(src, &corev1.Pod{}, 0, cache.Indexers{}).(*watched).name,
		NewInformer(&set, WithName("pods"))(src, &corev1.Pod{}, 0, cache.Indexers{}).(*watched).name,
		NewInformer(&set, WithName("mine"))(src, &corev1.Pod{}, 0, cache.Indexers{}).(*watched).name,
	}
	want := []string{"pods", "pods #2", "pods #3", "mine"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("informer %d is named %q, want %q (all: %q)", i+1, names[i], want[i], names)
		}
	}
}

// Built while frames and scrapes are served: run under -race.
func TestSetGrowsWhileServed(t *testing.T) {
	set := NewSet()
	srv := server(t, set, Options{})
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { podInformer(set, newTestSource(t), fmt.Sprintf("inf-%d", i)) })
	}
	for range 4 {
		wg.Go(func() {
			for range 10 {
				for _, path := range []string{api.PathFrame, api.PathMetrics} {
					resp, err := srv.Client().Get(srv.URL + path)
					if err != nil {
						t.Error(err)
						return
					}
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Errorf("GET %s: %s", path, resp.Status)
					}
				}
			}
		})
	}
	wg.Wait()
	waitfor.True(t, "every informer in a frame", func() bool {
		var fr api.Frame
		servetest.GetJSON(t, srv, api.PathFrame, &fr)
		return len(fr.Snapshots) == n
	})
}

// foo is a custom resource's type, as a generated clientset's package
// declares it; client-go's scheme does not know it.
type foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (f *foo) DeepCopyObject() runtime.Object { c := *f; return &c }

// An informer is named and labelled by its resource whenever something
// can tell it: client-go's scheme, the object's own kind, the generated
// client's group and version, or WithResource.
func TestInformersAreNamedByTheirResource(t *testing.T) {
	set := NewSet()
	src := newTestSource(t)
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	meta := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
	fooGVR := schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}
	gv := fooGVR.GroupVersion()
	rc, err := rest.RESTClientFor(&rest.Config{Host: "https://127.0.0.1:1", APIPath: "/apis",
		ContentConfig: rest.ContentConfig{GroupVersion: &gv, NegotiatedSerializer: scheme.Codecs.WithoutConversion()}})
	if err != nil {
		t.Fatal(err)
	}
	byClient := InformerForClient(set, &foo{}, func(c *rest.RESTClient) rest.Interface { return c })(rc, 0)

	for _, c := range []struct {
		inf          cache.SharedIndexInformer
		name         string
		gvr          schema.GroupVersionResource
		resourceName string
	}{
		{NewInformer(set)(src, &corev1.Pod{}, 0, cache.Indexers{}), "pods", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "pods"},
		{NewInformer(set)(src, &appsv1.Deployment{}, 0, cache.Indexers{}), "deployments.apps", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "deployments.apps"},
		{NewInformer(set)(src, widget, 0, cache.Indexers{}), "widgets.example.com (unstructured)", schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, "widgets.example.com"},
		{NewInformer(set)(src, meta, 0, cache.Indexers{}), "secrets (metadata)", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, "secrets"},
		{byClient, "foos.samplecontroller.k8s.io", fooGVR, "foos.samplecontroller.k8s.io"},
		{NewInformer(set, WithResource(fooGVR))(src, &foo{}, 0, cache.Indexers{}), "foos.samplecontroller.k8s.io #2", fooGVR, "foos.samplecontroller.k8s.io"},
		{NewInformer(set)(src, &foo{}, 0, cache.Indexers{}), "foo", schema.GroupVersionResource{}, ""},
	} {
		w := c.inf.(*watched)
		if w.name != c.name || w.gvr != c.gvr || w.resource != c.resourceName {
			t.Errorf("informer %q: gvr %v, resource %q; want %q, %v, %q", w.name, w.gvr, w.resource, c.name, c.gvr, c.resourceName)
		}
	}
}
