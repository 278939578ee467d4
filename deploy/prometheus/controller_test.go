package prometheus_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
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

	"github.com/informtop/informtop/internal/kubetest"
)

// The example controller's binary, built once by the first test that needs
// it and removed by TestMain.
var exampleBin struct {
	sync.Mutex
	dir, path string
	err       error
}

func controllerBinary(t *testing.T) string {
	t.Helper()
	exampleBin.Lock()
	defer exampleBin.Unlock()
	if exampleBin.path == "" && exampleBin.err == nil {
		exampleBin.dir, exampleBin.err = os.MkdirTemp("", "informtop-rules-")
		if exampleBin.err == nil {
			path := filepath.Join(exampleBin.dir, "client-go-controller")
			build := exec.Command("go", "build", "-o", path, "./client-go-controller")
			build.Dir = filepath.Join("..", "..", "examples")
			if out, err := build.CombinedOutput(); err != nil {
				exampleBin.err = fmt.Errorf("building examples/client-go-controller: %v\n%s", err, out)
			} else {
				exampleBin.path = path
			}
		}
	}
	if exampleBin.err != nil {
		t.Fatal(exampleBin.err)
	}
	return exampleBin.path
}

func removeControllerBinary() {
	exampleBin.Lock()
	defer exampleBin.Unlock()
	if exampleBin.dir != "" {
		os.RemoveAll(exampleBin.dir)
	}
}

// controller is examples/client-go-controller running as its users run it,
// its agent serving /metrics.
type controller struct {
	cmd   *exec.Cmd
	addr  string // the agent's host:port
	mu    sync.Mutex
	lines []string // its log so far
	done  chan struct{}
	once  sync.Once
}

// startController starts the example on the deployments of ns, with its
// handler blocked on the first one when blocked, and returns once its agent
// listens. It stops when t ends.
func startController(t *testing.T, c *kubetest.Cluster, ns string, blocked bool) *controller {
	t.Helper()
	args := []string{"--kubeconfig", c.Kubeconfig, "--namespace", ns, "--agent-addr", "127.0.0.1:0"}
	if blocked {
		// The release file never appears: the handler stays in its first
		// callback until the controller stops.
		args = append(args, "--block-handler", "--release-file", filepath.Join(t.TempDir(), "never"))
	}
	p := &controller{cmd: exec.Command(controllerBinary(t), args...), done: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		defer close(p.done)
		re := regexp.MustCompile(`^agent listening on (\S+)$`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				listening <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the controller in %s logged:\n%s", ns, strings.Join(p.log(), "\n"))
		}
		p.stop()
	})
	select {
	case p.addr = <-listening:
	case <-p.done:
		t.Fatalf("the controller exited before its agent listened; its log:\n%s", strings.Join(p.log(), "\n"))
	case <-time.After(60 * time.Second):
		t.Fatalf("the controller's agent did not listen in 60 s; its log:\n%s", strings.Join(p.log(), "\n"))
	}
	return p
}

func (p *controller) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
		<-p.done
	})
}

func (p *controller) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// scrape GETs the agent's /metrics, as Prometheus would, and parses it with
// Prometheus's own parser.
func (p *controller) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("http://" + p.addr + "/metrics")
	if err != nil {
		t.Fatalf("scraping the controller's agent: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the controller's /metrics answered %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the controller's /metrics does not parse: %v", err)
	}
	return families
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
