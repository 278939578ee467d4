package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/kubetest"
)

// TestMemoryEstimateOnTheServersObjects: configmaps of known size, created
// with kubectl's last-applied annotation, read with --strip-last-applied.
// The estimate of their data is within 15 % of the data's size in the
// server's own JSON, what stripping last-applied saved is within 15 % of
// the annotation's, and stripping managedFields (on by default) reports a
// saving.
func TestMemoryEstimateOnTheServersObjects(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	// Enough objects that the meters, which measure one in 64, measure
	// several: the chance of none among 640 is 1 in 20,000.
	const n, workers = 640, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("sized-%03d", i),
						Annotations: map[string]string{engine.LastAppliedAnnotation: `{"note":"` + strings.Repeat("a", 1000) + `"}`}},
					Data: map[string]string{"payload": strings.Repeat("d", 2000+50*(i%20))},
				}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// The server's JSON, measured field by field without informtop's code.
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces", ns, "configmaps").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Data json.RawMessage `json:"data"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	var data, applied float64
	for _, it := range list.Items {
		if it.Data != nil {
			data += float64(len(`"data":`) + len(it.Data) + 1)
		}
		if v, ok := it.Metadata.Annotations[engine.LastAppliedAnnotation]; ok {
			applied += float64(memberBytes(engine.LastAppliedAnnotation, v))
		}
	}

	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}, StripLastApplied: true}, true)
	m := s.Informer("configmaps").State().Memory
	t.Logf("data: estimated %.0f bytes, server's JSON %.0f; last-applied: saved %.0f, annotations %.0f; managedFields saved %.0f",
		m.ByField[source.FieldData], data, m.SavedByTransforms[source.TransformStripLastApplied], applied, m.SavedByTransforms[source.TransformStripManagedFields])
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.15*want }
	if m.Objects != len(list.Items) || m.Sampled == 0 {
		t.Fatalf("memory %+v for %d objects on the server", m, len(list.Items))
	}
	if got := m.ByField[source.FieldData]; !near(got, data) {
		t.Errorf("data estimated at %v bytes, %v in the server's JSON", got, data)
	}
	if got := m.SavedByTransforms[source.TransformStripLastApplied]; !near(got, applied) {
		t.Errorf("stripping last-applied saved %v bytes by the estimate, the annotations are %v", got, applied)
	}
	if got := m.SavedByTransforms[source.TransformStripManagedFields]; got <= 0 {
		t.Errorf("stripping managedFields saved %v bytes, want some: the server sets them", got)
	}
	if got := m.ByField[source.FieldLastApplied] + m.ByField[source.FieldManagedFields]; got != 0 {
		t.Errorf("stripped fields still estimated at %v bytes in the cache", got)
	}
}
