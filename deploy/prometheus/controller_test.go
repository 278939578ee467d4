package prometheus_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// controller is the example running as its users run it, its agent
// serving /metrics.
type controller struct{ *examplectl.Process }

// startController starts the test twin of examples/client-go-controller on the deployments
// of ns, with its handler blocked on the first one when blocked, and
// returns once its agent listens. It stops when t ends.
func startController(t *testing.T, c *kubetest.Cluster, ns string, blocked bool) *controller {
	t.Helper()
	args := []string{"--kubeconfig", c.Kubeconfig, "--namespace", ns, "--agent-addr", "127.0.0.1:0"}
	if blocked {
		// The release file never appears: the handler stays in its first
		// callback until the controller stops.
		args = append(args, "--block-handler", "--release-file", filepath.Join(t.TempDir(), "never"))
	}
	return &controller{examplectl.Start(t, examplectl.ClientGoController, args...)}
}

// scrape GETs the agent's /metrics, as Prometheus would, and parses it with
// Prometheus's own parser.
func (p *controller) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(p.scrapeText(t)))
	if err != nil {
		t.Fatalf("the controller's /metrics does not parse: %v", err)
	}
	return families
}

// scrapeText is the agent's /metrics as served, in the text format.
func (p *controller) scrapeText(t *testing.T) []byte {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.Addr()+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("scraping the controller's agent: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the controller's /metrics: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the controller's /metrics answered %s", resp.Status)
	}
	return body
}

// namespaceWithDeployments creates ns and n deployments in it.
func namespaceWithDeployments(t *testing.T, c *kubetest.Cluster, ns string, n int) {
	t.Helper()
	cfg := c.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Its connections' goroutines must not outlive the call (goleak).
	defer hc.CloseIdleConnections()
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("web-%d", i)
		labels := map[string]string{"app": name}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
			},
		}
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
