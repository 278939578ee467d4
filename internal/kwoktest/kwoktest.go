// Package kwoktest gives a kubetest cluster fake nodes whose kubelet is a
// kwok process, for tests only: a pod bound to such a node is Running and
// Ready without a container, and a port-forward through the real API server
// to one of its ports reaches an address on this machine, as a PortForward
// object (group kwok.x-k8s.io) of the pod's namespace and name says. So a
// test can attach to "a pod" through the API server the way informtop does
// in production, while the pod is a server the test started itself.
//
// The binary, the PortForward and Logs CRDs and kwok's stages come from
// test/kwok/build.sh (`make kwok-bin`), found through the environment
// variable INFORMTOP_KWOK_BIN; `make unit` sets it. Without it, Start skips
// the test under -short and fails it otherwise.
//
// Every kwok process Start starts is stopped when its test ends (SIGTERM,
// then SIGKILL after a grace period), and by the kernel if the test binary
// dies first; when the test failed, the end of its log is written to the
// test's log.
package kwoktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/informtop/informtop/internal/childproc"
	"github.com/informtop/informtop/internal/kubetest"
)

const (
	// EnvBinDir names the environment variable holding the directory that
	// test/kwok/build.sh prints: kwok, the PortForward and Logs CRDs and the stages.
	EnvBinDir = "INFORMTOP_KWOK_BIN"

	crdFile     = "kwok.x-k8s.io_portforwards.yaml"
	logsCRDFile = "kwok.x-k8s.io_logs.yaml"
	stagesFile  = "stages.yaml"

	// nodeAnnotation marks a Node as kwok's; its value is the node's name,
	// so that each kwok process takes its own node only and several nodes
	// can share a cluster.
	nodeAnnotation = "kwok.x-k8s.io/node"
	// nodeIP is the address the API server dials for the node's kubelet,
	// kwok's server.
	nodeIP = "127.0.0.1"

	// timeout bounds each wait: kwok is healthy within 200 ms and a node or
	// pod Ready about 3 s later, but a loaded 2-core CI machine running other
	// tests under -race can be far slower.
	timeout = 60 * time.Second
	// stopGrace bounds how long kwok may take to stop after SIGTERM before
	// it gets SIGKILL.
	stopGrace = 10 * time.Second
	// tailLines is how much of kwok's log a failure shows.
	tailLines = 40
)

// ErrNoBinaries is what Start skips or fails with when INFORMTOP_KWOK_BIN is
// not set.
var ErrNoBinaries = errors.New(EnvBinDir + " is not set, so there is no kwok to start: " +
	"run the tests with `make unit`, or run `make kwok-bin` and set " + EnvBinDir + " to the directory it prints")

var (
	portForwardsGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "portforwards"}
	logsGVR         = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "logs"}
	crdsGVR         = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// serial numbers the nodes of the test binary, for their names and pod
// CIDRs.
var serial atomic.Int64

// files are the paths of what test/kwok/build.sh built.
type files struct{ kwok, crd, logsCRD, stages string }

func findFiles() (files, error) {
	dir := os.Getenv(EnvBinDir)
	if dir == "" {
		return files{}, ErrNoBinaries
	}
	bin, err := childproc.Executable(EnvBinDir, dir, "kwok", "kwok-bin")
	if err != nil {
		return files{}, err
	}
	f := files{kwok: bin, crd: filepath.Join(dir, crdFile), logsCRD: filepath.Join(dir, logsCRDFile), stages: filepath.Join(dir, stagesFile)}
	for _, p := range []string{f.crd, f.logsCRD, f.stages} {
		if _, err := os.Stat(p); err != nil {
			return files{}, fmt.Errorf("%s=%s has no usable %s (%v): run `make kwok-bin` and set %s to the directory it prints",
				EnvBinDir, dir, filepath.Base(p), err, EnvBinDir)
		}
	}
	return f, nil
}

// Node is one fake node whose kubelet is a kwok process. Its fields are set
// by Start and not changed afterwards, so its methods may be called from
// parallel tests.
type Node struct {
	name string
	port int // kwok's server, the node's kubelet endpoint
	p    *childproc.Process

	cfg *rest.Config
	hc  *http.Client // under cs and dyn; its idle connections close at cleanup
	cs  *kubernetes.Clientset
	dyn *dynamic.DynamicClient
}

// Start installs the PortForward and Logs CRDs into c (once per cluster), starts a kwok
// process, creates a Node object for it alone (a unique name per Start) and
// returns once the node is Ready. When t ends it deletes the pods still on
// the node, stops kwok and deletes the Node; when t failed, it first writes
// the end of kwok's log to t's log.
func Start(t testing.TB, c *kubetest.Cluster) *Node {
	t.Helper()
	f, err := findFiles()
	if err != nil {
		childproc.SkipOrFatal(t, err, ErrNoBinaries)
	}
	began := time.Now()
	id := serial.Add(1)
	n := &Node{name: fmt.Sprintf("kwok-%d", id), cfg: c.RESTConfig()}
	if n.hc, err = rest.HTTPClientFor(n.cfg); err != nil {
		t.Fatalf("kwoktest: could not make an HTTP client for %s: %v", n.cfg.Host, err)
	}
	if n.cs, err = kubernetes.NewForConfigAndClient(n.cfg, n.hc); err != nil {
		t.Fatalf("kwoktest: could not make a clientset for %s: %v", n.cfg.Host, err)
	}
	if n.dyn, err = dynamic.NewForConfigAndClient(n.cfg, n.hc); err != nil {
		t.Fatalf("kwoktest: could not make a dynamic client for %s: %v", n.cfg.Host, err)
	}
	// TempDir before Cleanup: cleanups run last-in first-out, so kwok stops
	// before its directory is removed.
	dir := t.TempDir()
	t.Cleanup(func() {
		if t.Failed() && n.p != nil {
			t.Logf("kwoktest: last lines of kwok for node %s (pid %d, %s), from %s:\n%s",
				n.name, n.p.PID(), n.p.State(), n.p.LogPath(), indent(n.p.Tail(tailLines)))
		}
		n.close(t)
	})

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for crd, gvr := range map[string]schema.GroupVersionResource{f.crd: portForwardsGVR, f.logsCRD: logsGVR} {
		if err := n.installCRD(ctx, crd, gvr); err != nil {
			t.Fatal(err)
		}
	}
	// Distinct pod IPs per node, so that two nodes' pods never share one.
	cidr := fmt.Sprintf("10.244.%d.0/24", id%256)
	if err := n.launch(f, dir, c.Kubeconfig, cidr); err != nil {
		t.Fatal(err)
	}
	// The Node only once kwok's server listens: the node-initialize stage
	// writes kwok's port into the node's status once, so a kwok started again
	// on another port (see launch) must not have seen the node.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        n.name,
		Labels:      map[string]string{corev1.LabelHostname: n.name},
		Annotations: map[string]string{nodeAnnotation: n.name},
	}}
	if _, err := n.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kwoktest: could not create node %s: %v", n.name, err)
	}
	if err := n.waitReady(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kwoktest: node %s (kwok at %s:%d) Ready in %s", n.name, nodeIP, n.port, time.Since(began).Round(time.Millisecond))
	return n
}

// Name is the name of the Node object.
func (n *Node) Name() string { return n.name }

// installCRD creates the CRD at path (PortForward's, Logs') unless another
// Start did, and returns once the API server serves its resource gvr.
func (n *Node) installCRD(ctx context.Context, path string, gvr schema.GroupVersionResource) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("kwoktest: could not read the CRD %s: %w", filepath.Base(path), err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("kwoktest: %s is not a CRD in YAML: %w", path, err)
	}
	_, err = n.dyn.Resource(crdsGVR).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kwoktest: could not create the CRD of %s: %w", gvr.Resource, err)
	}
	// The API server serves a new CRD a moment after creating it. (It also
	// holds every create of the CRD's objects for 2 s during the 2 s after
	// it became Established, a guard for HA clusters: a cluster's first Pod
	// soon after its first Start takes 2 s longer.)
	var last error
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, last = n.dyn.Resource(gvr).Namespace(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{Limit: 1})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("kwoktest: the API server did not serve the CRD of %s within %s: %v", gvr.Resource, timeout, last)
	}
	return nil
}

// launch starts kwok on a free port and waits until its server answers. A
// port found free may be taken before kwok binds it: it tries again with
// another, a few times.
func (n *Node) launch(f files, dir, kubeconfig, cidr string) error {
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		addr := net.JoinHostPort(nodeIP, strconv.Itoa(port))
		logPath := filepath.Join(dir, fmt.Sprintf("kwok.%d.log", attempt))
		p, err := childproc.StartEnv("kwok", f.kwok, logPath, []string{
			"--kubeconfig=" + kubeconfig,
			"--config=" + f.stages,
			"--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector=" + nodeAnnotation + "=" + n.name,
			"--node-ip=" + nodeIP,
			// --node-port is what the node-initialize stage writes as the
			// kubelet's port; --server-address is what kwok binds, which
			// without it is every interface.
			"--node-port=" + strconv.Itoa(port),
			"--server-address=" + addr,
			"--cidr=" + cidr,
			"--enable-crds=PortForward,Logs",
		}, []string{
			// Else kwok reads ~/.kwok/kwok.yaml, the user's, before --config.
			"KWOK_WORKDIR=" + filepath.Join(dir, "workdir"),
		})
		if err != nil {
			return fmt.Errorf("kwoktest: %w", err)
		}
		n.p, n.port = p, port
		// kwok serves plain HTTP beside HTTPS on its port (it tells them
		// apart by the first bytes), and its server starts only once it
		// watches nodes, pods and PortForwards.
		tr := &http.Transport{}
		client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
		err = childproc.WaitReady(p, client, "http://"+addr+"/healthz", "", timeout)
		tr.CloseIdleConnections()
		if err == nil {
			return nil
		}
		p.Stop(stopGrace)
		if attempt < 3 && p.LogContains("address already in use") {
			continue
		}
		return fmt.Errorf("kwoktest: %w", err)
	}
}

// waitReady waits until the node is Ready with kwok's port as its kubelet's.
func (n *Node) waitReady(ctx context.Context) error {
	var last string
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if n.p.Exited() {
			return false, fmt.Errorf("kwok exited (%s)", n.p.State())
		}
		node, err := n.cs.CoreV1().Nodes().Get(ctx, n.name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		ready := condition(node.Status.Conditions, corev1.NodeReady)
		port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
		last = fmt.Sprintf("Ready %q, kubelet port %d", ready, port)
		return ready == corev1.ConditionTrue && port == int32(n.port), nil
	})
	if err != nil {
		return fmt.Errorf("kwoktest: node %s was not Ready with kubelet port %d within %s (%v; last seen: %s); the end of kwok's log:\n%s",
			n.name, n.port, timeout, err, last, indent(n.p.Tail(tailLines)))
	}
	return nil
}

func condition(conds []corev1.NodeCondition, typ corev1.NodeConditionType) corev1.ConditionStatus {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// close deletes the pods left on the node (nothing would finalize their
// deletion once kwok is gone), stops kwok, then deletes the Node and its
// Lease, so a shared cluster keeps no trace of it.
func (n *Node) close(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	defer n.hc.CloseIdleConnections()
	pods, err := n.cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.name})
	if err != nil {
		t.Errorf("kwoktest: could not list the pods left on node %s: %v", n.name, err)
	} else {
		for _, pod := range pods.Items {
			n.forceDelete(ctx, t, pod.Namespace, pod.Name)
		}
	}
	if n.p != nil {
		n.p.Stop(stopGrace)
	}
	if err := n.cs.CoreV1().Nodes().Delete(ctx, n.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("kwoktest: could not delete node %s: %v", n.name, err)
	}
	err = n.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, n.name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("kwoktest: could not delete node %s's lease: %v", n.name, err)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", nodeIP+":0")
	if err != nil {
		return 0, fmt.Errorf("kwoktest: could not find a free port on %s: %w", nodeIP, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
