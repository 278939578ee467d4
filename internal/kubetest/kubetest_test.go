package kubetest_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
)

// clientset builds a clientset whose idle connections are closed when t
// ends, so goleak sees no connection goroutine left.
func clientset(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hc.CloseIdleConnections)
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestNewWithoutBinaries(t *testing.T) {
	t.Setenv(kubetest.EnvBinDir, "")
	if _, err := kubetest.New(); !errors.Is(err, kubetest.ErrNoBinaries) {
		t.Fatalf("New without %s = %v, want ErrNoBinaries", kubetest.EnvBinDir, err)
	}
}

func TestStartFailureShowsLog(t *testing.T) {
	if os.Getenv(kubetest.EnvBinDir) == "" {
		kubetest.Shared(t) // skips or fails with the usual sentence
	}
	c, err := kubetest.New(kubetest.WithAPIServerFlags("--no-such-flag"))
	if err == nil {
		c.Close()
		t.Fatal("New with an unknown API server flag succeeded")
	}
	t.Logf("New's error, as a test would show it:\n%v", err)
	if msg := err.Error(); !strings.Contains(msg, "kube-apiserver exited before it was ready") || !strings.Contains(msg, "no-such-flag") {
		t.Errorf("New's error does not say the API server exited and why:\n%s", msg)
	}
}

func TestKubeconfigAndVersion(t *testing.T) {
	c := kubetest.Shared(t)

	raw, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if raw.CurrentContext != kubetest.ContextName {
		t.Errorf("current-context = %q, want %q", raw.CurrentContext, kubetest.ContextName)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != c.Server() {
		t.Errorf("kubeconfig server = %q, want %q", cfg.Host, c.Server())
	}
	v, err := clientset(t, cfg).Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	// build.sh stamps the version; unstamped binaries say v0.0.0-master.
	if v.Major != "1" || !strings.HasPrefix(v.GitVersion, "v1.") {
		t.Errorf("server version = %s (major %q), want a stamped v1.x", v.GitVersion, v.Major)
	}

	out, err := exec.Command(c.Kubectl(), "--kubeconfig", c.Kubeconfig, "get", "namespace", "default", "-o", "name").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "namespace/default" {
		t.Errorf("kubectl get namespace default: %v\n%s", err, out)
	}
}

func TestRestrictedUser(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "kubetest-restricted"
	path := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{
		Verbs:     []string{"get", "list", "watch"},
		APIGroups: []string{""},
		Resources: []string{"configmaps"},
	}})

	admin := clientset(t, c.RESTConfig())
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "visible", Namespace: ns}}
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx(t), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := raw.Contexts[raw.CurrentContext].Namespace; raw.CurrentContext != kubetest.ContextName || got != ns {
		t.Errorf("restricted kubeconfig: context %q namespace %q, want %q and %q", raw.CurrentContext, got, kubetest.ContextName, ns)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	user := clientset(t, cfg)

	cms, err := user.CoreV1().ConfigMaps(ns).List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("restricted user listing configmaps in %s: %v", ns, err)
	}
	found := false
	for _, item := range cms.Items {
		found = found || item.Name == "visible"
	}
	if !found {
		t.Errorf("restricted user's configmap list lacks %q: %v", "visible", cms.Items)
	}
	if _, err := user.CoreV1().Pods(ns).List(ctx(t), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("restricted user listing pods in %s: %v, want 403 Forbidden", ns, err)
	}
	if _, err := user.CoreV1().ConfigMaps("default").List(ctx(t), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("restricted user listing configmaps in default: %v, want 403 Forbidden", err)
	}
}

// TestAPIServerOutage stops the API server, changes an object through a
// second API server on the same etcd, compacts etcd, and starts the first
// one again, which answers a watch from before the compaction with 410.
func TestAPIServerOutage(t *testing.T) {
	c := kubetest.Start(t)
	cs := clientset(t, c.RESTConfig())
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "survivor", Namespace: "default"},
		Data:       map[string]string{"generation": "1"},
	}
	created, err := cs.CoreV1().ConfigMaps("default").Create(ctx(t), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	c.StopAPIServer()
	t.Logf("API server stopped in %s", time.Since(began).Round(time.Millisecond))
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx(t), "survivor", metav1.GetOptions{}); err == nil {
		t.Fatal("Get succeeded while the API server was stopped")
	}

	second := clientset(t, c.StartSecondAPIServer(t))
	got, err := second.CoreV1().ConfigMaps("default").Get(ctx(t), "survivor", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Data["generation"] = "2"
	if _, err := second.CoreV1().ConfigMaps("default").Update(ctx(t), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rev := c.CompactEtcd(t)
	if old, _ := strconv.ParseInt(created.ResourceVersion, 10, 64); old >= rev-1 || !kubetest.EtcdCompacted(t, c, old) || kubetest.EtcdCompacted(t, c, rev) {
		t.Fatalf("compacted to revision %d: the configmap's revision %s should be gone and %d kept", rev, created.ResourceVersion, rev)
	}

	began = time.Now()
	c.StartAPIServer(t)
	t.Logf("API server restarted in %s", time.Since(began).Round(time.Millisecond))
	got, err = cs.CoreV1().ConfigMaps("default").Get(ctx(t), "survivor", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get after the restart: %v", err)
	}
	if got.Data["generation"] != "2" {
		t.Errorf("after the restart the configmap has generation %q, want the second API server's 2", got.Data["generation"])
	}

	// The API server's watch cache starts after the compaction, so a
	// watch from a resourceVersion handed out before answers 410 Gone, as
	// a user's reflector coming back after an outage meets it.
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx(t), metav1.ListOptions{ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatalf("a watch from resourceVersion %s after the compaction: %v", created.ResourceVersion, err)
	}
	defer w.Stop()
	ev, ok := <-w.ResultChan()
	if gone := apierrors.FromObject(ev.Object); !ok || !apierrors.IsResourceExpired(gone) && !apierrors.IsGone(gone) {
		t.Errorf("a watch from resourceVersion %s after the compaction to %d got %v %+v, want an ERROR event with 410 Gone", created.ResourceVersion, rev, ev.Type, ev.Object)
	}
}

func TestCloseStopsEveryProcess(t *testing.T) {
	c := kubetest.Start(t)
	c.StartSecondAPIServer(t)
	pids := kubetest.PIDs(c)
	if len(pids) != 3 {
		t.Fatalf("PIDs = %v, want etcd and two API servers", pids)
	}
	for _, pid := range pids {
		if gone(pid) {
			t.Fatalf("process %d is not running before Close", pid)
		}
	}
	c.Close()
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("process %d is still running after Close", pid)
		}
	}
	c.Close() // a second Close, as t.Cleanup will do, is harmless
}

const helperEnv = "KUBETEST_HELPER_UNTIL_KILLED"

// TestKilledTestBinaryLeavesNoProcess runs this test binary again, lets it
// start a cluster, SIGKILLs it (as go test's -timeout or an OOM kill would)
// and checks that the kernel took etcd and the API server down with it.
func TestKilledTestBinaryLeavesNoProcess(t *testing.T) {
	if os.Getenv(kubetest.EnvBinDir) == "" {
		kubetest.Shared(t) // skips or fails with the usual sentence
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUntilKilled$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "PIDS "); ok {
			for _, f := range strings.Fields(rest) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			break
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(pids) < 2 {
		t.Fatalf("the helper printed PIDs %v, want etcd and the API server; its stderr:\n%s", pids, stderr.String())
	}
	for _, pid := range pids {
		waitfor.True(t, fmt.Sprintf("process %d to end with the killed test binary", pid), func() bool { return gone(pid) })
	}
}

func TestHelperUntilKilled(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("runs only as the child of TestKilledTestBinaryLeavesNoProcess")
	}
	c := kubetest.Start(t)
	fmt.Println("PIDS", strings.Trim(fmt.Sprint(kubetest.PIDs(c)), "[]"))
	time.Sleep(time.Minute) // the parent kills this process long before
}

// gone reports whether pid has exited. A zombie counts as gone: a child whose
// parent was killed is reparented to PID 1, which in a container may never
// reap it.
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}
