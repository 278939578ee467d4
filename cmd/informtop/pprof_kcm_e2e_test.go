package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/childproc"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
)

// kube-controller-manager v1.37.1, as built beside the API server
// (test/kube/build.sh), serving on 127.0.0.1 with delegated authentication
// and authorization and profiling as shipped: attach to its address, with
// no --pprof, finds no agent and lists its informers, listeners and
// workqueues from its goroutine dumps and metrics; a user the API server
// does not allow /debug/pprof/* gets the sentence naming the rule.
func TestAttachPprofToKubeControllerManager(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	kcm, err := childproc.Executable(kubetest.EnvBinDir, os.Getenv(kubetest.EnvBinDir), "kube-controller-manager", "kube-bin")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	port := freePort(t)
	proc, err := childproc.Start("kube-controller-manager", kcm, filepath.Join(dir, "kcm.log"), []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + dir,
		"--leader-elect=false",
		"--controllers=deployment,replicaset,job,cronjob,daemonset,statefulset,namespace,serviceaccount,garbagecollector",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		proc.Stop(30 * time.Second)
		if t.Failed() {
			t.Logf("kube-controller-manager logged:\n%s", proc.Tail(40))
		}
	})
	addr := "https://127.0.0.1:" + strconv.Itoa(port)
	// Its secure port serves /healthz without authorization: up once it
	// answers 200.
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a health probe of a local test server
	defer insecure.CloseIdleConnections()
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if proc.Exited() {
			return false, fmt.Errorf("kube-controller-manager exited: %s", proc.State())
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/healthz", nil)
		resp, err := insecure.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("kube-controller-manager did not become healthy at %s: %v", addr, err)
	}
	// Its serving certificate is self-signed by a CA written beside it.
	ca := filepath.Join(dir, "kube-controller-manager.crt")
	adminToken := tokenFile(t, c.Kubeconfig)

	var doc pprofJSON
	var took time.Duration
	var last string
	err = wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		code, stdout, stderr, d := informtop(t, bin, "attach", addr, "--once", "--json", "--token-file", adminToken, "--agent-ca-file", ca, "--timeout", "30s")
		last = fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
		doc, took = pprofJSON{}, d
		if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil {
			return false, nil
		}
		return len(doc.Informers) >= 5 && slices.ContainsFunc(doc.Workqueues, func(q struct {
			Name string `json:"name"`
			Adds uint64 `json:"adds"`
		}) bool {
			return q.Name == "deployment"
		}), nil
	})
	if err != nil {
		t.Fatalf("attach never listed kube-controller-manager's informers and its deployment workqueue: %v; the last attach: %s", err, last)
	}
	listeners := 0
	for _, inf := range doc.Informers {
		if inf.Implementation != source.ImplementationPprof {
			t.Errorf("informer %s: implementation %q, want %q", inf.Name, inf.Implementation, source.ImplementationPprof)
		}
		listeners += len(inf.Listeners)
	}
	var queues []string
	for _, q := range doc.Workqueues {
		queues = append(queues, q.Name)
	}
	t.Logf("attach --once read %d informers, %d listeners and %d workqueues (%s) of kube-controller-manager in %s",
		len(doc.Informers), listeners, len(doc.Workqueues), strings.Join(queues, ", "), took.Round(time.Millisecond))
	if testing.Verbose() {
		t.Logf("kube-controller-manager's %s", goroutineTotal(t, insecure, addr, adminToken))
	}
	if _, table, _, _ := informtop(t, bin, "attach", addr, "--once", "--token-file", adminToken, "--agent-ca-file", ca); testing.Verbose() {
		t.Logf("attach --once:\n%s", table)
	}
	if listeners < len(doc.Informers) {
		t.Errorf("%d listeners for %d informers: every informer found has a listener", listeners, len(doc.Informers))
	}

	// A user the API server lets read ConfigMaps in one namespace, but
	// not /debug/pprof/*.
	restricted := c.RestrictedUser(t, "pprof-kcm", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}})
	code, stdout, stderr, _ := informtop(t, bin, "attach", addr, "--pprof", "--once", "--json", "--token-file", tokenFile(t, restricted), "--agent-ca-file", ca, "--timeout", "30s")
	t.Logf("as a user without the rule: %s", strings.TrimSpace(stderr))
	t.Run("through the API server", func(t *testing.T) { attachKCMThroughTheAPIServer(t, c, bin, port) })
	if code != 2 || !strings.Contains(stderr, `nonResourceURLs: ["/debug/pprof/*"], verbs: ["get"]`) || !strings.Contains(stderr, "403") {
		t.Errorf("attach --pprof as a user without the pprof rule: exit %d, stderr\n%s\nstdout\n%s\nwant exit 2 and a sentence naming the rule", code, stderr, stdout)
	}
}

// kube-controller-manager as a pod (a kwok node forwards its port 10257
// to the process above), reached as an operator would:
// attach -n kube-system pod/NAME:10257 through the API server, with the
// kubeconfig's token, TLS found by itself; and a user who may
// port-forward but not read /debug/pprof/* gets the sentence.
func attachKCMThroughTheAPIServer(t *testing.T, c *kubetest.Cluster, bin string, port int) {
	node := kwoktest.Start(t, c)
	const ns, pod = "kube-system", "kube-controller-manager-n1"
	node.Pod(t, controllerPod(ns, pod, "kube-controller-manager", "https", 10257), map[int32]string{10257: "127.0.0.1:" + strconv.Itoa(port)})
	target := "pod/" + pod + ":10257"
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		code, stdout, stderr, took := informtop(t, bin, "attach", "--kubeconfig", c.Kubeconfig, "-n", ns, target, "--once", "--json", "--timeout", "30s")
		last = fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
		var doc pprofJSON
		if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || len(doc.Informers) < 5 || len(doc.Workqueues) == 0 {
			return false, nil
		}
		t.Logf("attach -n %s %s: %d informers, %d workqueues in %s", ns, target, len(doc.Informers), len(doc.Workqueues), took.Round(time.Millisecond))
		return true, nil
	})
	if err != nil {
		t.Fatalf("attach -n %s %s never listed kube-controller-manager's informers: %v; the last: %s", ns, target, err, last)
	}
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get", "create"}, APIGroups: []string{""}, Resources: []string{"pods/portforward"}},
	})
	code, _, stderr, _ := informtop(t, bin, "attach", "--kubeconfig", kc, "-n", ns, target, "--pprof", "--once", "--json", "--timeout", "30s")
	if code != 2 || !strings.Contains(stderr, `nonResourceURLs: ["/debug/pprof/*"], verbs: ["get"]`) {
		t.Errorf("attach --pprof through the API server as a user without the pprof rule: exit %d, stderr\n%s\nwant exit 2 and a sentence naming the rule", code, stderr)
	}
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// tokenFile writes the bearer token of kubeconfig's user to a file for
// --token-file.
func tokenFile(t *testing.T, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	tok := cfg.BearerToken
	if tok == "" && cfg.BearerTokenFile != "" {
		b, err := os.ReadFile(cfg.BearerTokenFile)
		if err != nil {
			t.Fatal(err)
		}
		tok = strings.TrimSpace(string(b))
	}
	if tok == "" {
		t.Fatalf("%s has no bearer token", kubeconfig)
	}
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// goroutineTotal is the first line of the goroutine profile at debug=1,
// "goroutine profile: total N", for the docs' figures.
func goroutineTotal(t *testing.T, client *http.Client, addr, tokenPath string) string {
	t.Helper()
	tok, err := os.ReadFile(tokenPath)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, addr+"/debug/pprof/goroutine?debug=1", nil)
	req.Header.Set("Authorization", "Bearer "+string(tok))
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	first, _, _ := strings.Cut(string(must(io.ReadAll(io.LimitReader(resp.Body, 4096)))), "\n")
	req, _ = http.NewRequest(http.MethodGet, addr+"/debug/pprof/goroutine?debug=2", nil)
	req.Header.Set("Authorization", "Bearer "+string(tok))
	began := time.Now()
	resp2, err := client.Do(req)
	if err != nil {
		return first + "; " + err.Error()
	}
	defer resp2.Body.Close()
	n, _ := io.Copy(io.Discard, resp2.Body)
	return fmt.Sprintf("%s; one debug=2 dump: %.2f MB in %s", first, float64(n)/1e6, time.Since(began).Round(time.Millisecond))
}

func must[T any](v T, _ error) T { return v }
