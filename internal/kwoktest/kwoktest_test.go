package kwoktest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
)

// kubetest.Main stops the shared cluster after the tests; goleak then checks
// that no goroutine (a process waiter, a port-forward's streams, an HTTP
// connection) outlived them.
func TestMain(m *testing.M) {
	code := kubetest.Main(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// A pod of a kwok node answers, through a port-forward through the real API
// server, with a server of this test; DeletePod removes it, and the node's
// kwok process and Node object are gone once the test that started it ends.
func TestPodForwardsThroughTheAPIServer(t *testing.T) {
	c := kubetest.Shared(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from the target, path %s", r.URL.Path)
	}))
	defer target.Close()

	cfg := c.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseIdleConnections()
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns, name = "kwoktest", "web"

	var pid int
	var node string
	t.Run("node", func(t *testing.T) {
		n := kwoktest.Start(t, c)
		pid, node = kwoktest.PID(n), n.Name()
		pod := n.Pod(t, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "web", Image: "example.invalid/web",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 6060}},
			}}},
		}, map[int32]string{6060: strings.TrimPrefix(target.URL, "http://")})
		if pod.Spec.NodeName != n.Name() || pod.Status.Phase != corev1.PodRunning {
			t.Fatalf("Pod returned a pod on node %q in phase %q, want node %q, Running", pod.Spec.NodeName, pod.Status.Phase, n.Name())
		}

		if got, want := forwardGet(t, cfg, cs, ns, name, 6060, "/through"), "hello from the target, path /through"; got != want {
			t.Fatalf("GET through the port-forward answered %q, want %q", got, want)
		}

		n.DeletePod(t, ns, name)
		if _, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("after DeletePod, getting the pod: %v; want not found", err)
		}
		if _, err := dyn.Resource(kwoktest.PortForwardsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("after DeletePod, getting its PortForward: %v; want not found", err)
		}
	})
	if pid == 0 {
		return // the subtest failed or skipped before kwok started
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kwok (pid %d) is still there after its test ended: kill(0) = %v", pid, err)
	}
	if _, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("node %s after its test ended: %v; want not found", node, err)
	}
}

// forwardGet forwards a local port to the pod's port through the API server
// with client-go's PortForwarder, as kubectl port-forward does, and returns
// the body of a GET of path through it.
func forwardGet(t *testing.T, cfg *rest.Config, cs kubernetes.Interface, ns, name string, port int, path string) string {
	t.Helper()
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	url := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	var errOut strings.Builder
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Errorf("the port-forward ended with %v", err)
		}
	}()
	select {
	case <-ready:
	case err := <-done:
		done <- err // for the deferred receive
		t.Fatalf("the port-forward ended before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the port-forward was not ready after 30 s")
	}
	ports, err := fw.GetPorts()
	if err != nil {
		t.Fatal(err)
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d%s", ports[0].Local, path))
	if err != nil {
		t.Fatalf("GET through the port-forward: %v (the forwarder said: %q)", err, errOut.String())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET through the port-forward: %s, %q, %v", resp.Status, body, err)
	}
	return string(body)
}
