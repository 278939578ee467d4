package engineserve

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
)

const appliedSecretJSON = `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"name":"db","namespace":"default"},"stringData":{"token":"plain-s3cr3t"}}`

// metadataSecret is a Secret as a metadata-only informer caches it.
func metadataSecret(name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1",
			Annotations: map[string]string{redact.LastApplied: appliedSecretJSON}},
	}
}

// A controller's metadata-only informer of secrets, named as such only in
// Options.Resources, or not at all: no endpoint shows what the Secret's
// last-applied annotation holds, not even when a handler rewrites it in
// the cache (the mutation report's field diff).
func TestMetadataOnlySecretLeavesNoEndpoint(t *testing.T) {
	for _, c := range []struct {
		name string
		opts serve.Options
	}{
		{"resource named", serve.Options{Resources: map[string]schema.GroupVersionResource{"secrets": {Version: "v1", Resource: "secrets"}}}},
		{"resource unknown", serve.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := newTestSource(t, runtime.Object(metadataSecret("db")))
			inf := engine.NewSharedIndexInformerWithOptions(src, &metav1.PartialObjectMetadata{}, engine.Options{Name: "secrets",
				Instrumentation: engine.Instrumentation{MutationAttribution: true, NoUpkeep: true}})
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
				// The bug mutation attribution finds: writing into the cache.
				m := obj.(*metav1.PartialObjectMetadata)
				m.Annotations[redact.LastApplied] = strings.Replace(appliedSecretJSON, "aHVudGVyMg==", "c3dvcmRmaXNo", 1)
			}})
			if err != nil {
				t.Fatal(err)
			}
			// The agent, built before the informer runs, lists changed fields with secret values hidden.
			srv := server(t, c.opts, inf)
			startInformer(t, inf)
			waitfor.True(t, "the handler to sync", reg.HasSynced)
			waitfor.True(t, "the change to be found", func() bool {
				ls := inf.Snapshot().Listeners
				return len(ls) == 1 && ls[0].CacheMutations > 0
			})
			paths := []string{api.PathFrame, api.PathReport, api.PathMetrics,
				api.PathObject + "?informer=secrets&key=" + url.QueryEscape("default/db"),
				api.PathEntries + "?informer=secrets"}
			for _, p := range paths {
				status, body := servetest.Get(t, srv, http.MethodGet, p, "")
				if status != http.StatusOK {
					t.Fatalf("GET %s: %d %s", p, status, body)
				}
				for _, v := range []string{"aHVudGVyMg", "c3dvcmRmaXNo", "plain-s3cr3t", `\"data\"`} {
					if strings.Contains(string(body), v) {
						t.Fatalf("GET %s shows %q:\n%s", p, v, body)
					}
				}
				if p == api.PathFrame && !strings.Contains(string(body), "last-applied-configuration: \u003credacted") &&
					!strings.Contains(string(body), `last-applied-configuration: \u003credacted`) {
					t.Fatalf("the frame should name the changed annotation, by size:\n%s", body)
				}
			}
		})
	}
}

// A ConfigMap whose last-applied annotation copies a Secret is secret to
// every endpoint, as to the Store view: its object, its entries, the
// frame's and report's mutation lists show neither the copy nor its data,
// even when a handler rewrites that data in the cache.
func TestConfigMapCopyingASecretLeavesNoEndpoint(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db", UID: "uid-db", ResourceVersion: "1",
		Annotations: map[string]string{redact.LastApplied: appliedSecretJSON}}, Data: map[string]string{"password": "cm-s3cr3t"}}
	src := newTestSource(t, runtime.Object(cm))
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, engine.Options{Name: "configmaps",
		Instrumentation: engine.Instrumentation{MutationAttribution: true, NoUpkeep: true}})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		obj.(*corev1.ConfigMap).Data["password"] = "an0ther-s3cr3t"
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := server(t, serve.Options{Resources: map[string]schema.GroupVersionResource{"configmaps": {Version: "v1", Resource: "configmaps"}}}, inf)
	startInformer(t, inf)
	waitfor.True(t, "the handler to sync", reg.HasSynced)
	waitfor.True(t, "the change to be found", func() bool {
		ls := inf.Snapshot().Listeners
		return len(ls) == 1 && ls[0].CacheMutations > 0
	})
	for _, p := range []string{api.PathFrame, api.PathReport, api.PathMetrics,
		api.PathObject + "?informer=configmaps&key=" + url.QueryEscape("default/db"), api.PathEntries + "?informer=configmaps"} {
		status, body := servetest.Get(t, srv, http.MethodGet, p, "")
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, status, body)
		}
		for _, v := range []string{"aHVudGVyMg", "plain-s3cr3t", "cm-s3cr3t", "an0ther-s3cr3t"} {
			if strings.Contains(string(body), v) {
				t.Fatalf("GET %s shows %q:\n%s", p, v, body)
			}
		}
		if p == api.PathFrame && !strings.Contains(string(body), `data.password: \u003credacted, 9 bytes\u003e → \u003credacted, 14 bytes`) {
			t.Fatalf("the frame should name the changed field, by size:\n%s", body)
		}
	}
}
