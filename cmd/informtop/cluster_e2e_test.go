package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
)

// clusterJSON is the part of the --once --json report (docs/report.md)
// these tests read.
type clusterJSON struct {
	Source           string    `json:"source"`
	Context          string    `json:"context"`
	Server           string    `json:"server"`
	Namespace        string    `json:"namespace"`
	AllNamespaces    bool      `json:"allNamespaces"`
	Time             time.Time `json:"time"`
	InformtopVersion string    `json:"informtopVersion"`
	Synced           bool      `json:"synced"`
	Informers        []struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		Group           string `json:"group"`
		Version         string `json:"version"`
		Synced          bool   `json:"synced"`
		NotSyncedReason string `json:"notSyncedReason"`
		Store           struct {
			Objects int `json:"objects"`
		} `json:"store"`
		Queue struct {
			Added uint64 `json:"added"`
		} `json:"queue"`
		Reflector struct {
			ListStreamed bool `json:"listStreamed"`
		} `json:"reflector"`
		Listeners []struct {
			Name   string `json:"name"`
			Synced bool   `json:"synced"`
		} `json:"listeners"`
		// Server is kept key by key: which keys are there matters.
		Server map[string]json.RawMessage `json:"server"`
	} `json:"informers"`
}

// informtop runs the binary as a user would, with a clean home so no
// kubeconfig or key map of the machine leaks in, and returns its exit code,
// stdout, stderr and how long it ran.
func informtop(t *testing.T, bin string, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "KUBECONFIG="+filepath.Join(home, "none"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String(), took
}

// seed creates a namespace with pods, configmaps and widgets (a CRD).
func seed(t *testing.T, c *kubetest.Cluster, ns string) {
	t.Helper()
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	for i := range 3 {
		name := fmt.Sprintf("x-%d", i)
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(bg, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.Widgets(t, ns, map[string]any{"metadata": map[string]any{"name": "w"}})
}

// `informtop --once --json -A -r pods,configmaps,<crd>` against a real API
// server: every informer syncs and the JSON counts what was created.
func TestOnceJSONOnARealCluster(t *testing.T) {
	c := kubetest.Shared(t)
	seed(t, c, "once-json")
	bin := buildInformtop(t, t.TempDir())
	code, stdout, stderr, _ := informtop(t, bin, "--kubeconfig", c.Kubeconfig, "--once", "--json", "-A", "-r", "pods,cm,widgets.example.com", "--listener", "slow=1ms")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s\n%s", code, stderr, stdout)
	}
	var doc clusterJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Source != "kube" || !doc.Synced || len(doc.Informers) != 3 {
		t.Fatalf("report %+v", doc)
	}
	for i, want := range []string{"pods", "configmaps", "widgets.example.com"} {
		inf := doc.Informers[i]
		if inf.Name != want || !inf.Synced || inf.NotSyncedReason != "" || inf.Store.Objects < 1 || len(inf.Listeners) != 2 {
			t.Errorf("informer %d: %+v, want %s synced with objects and listeners informtop and slow", i, inf, want)
		}
	}
	if doc.Informers[0].Store.Objects < 3 || doc.Informers[1].Store.Objects < 3 {
		t.Errorf("pods/configmaps in all namespaces: %d/%d, want at least 3 each", doc.Informers[0].Store.Objects, doc.Informers[1].Store.Objects)
	}
	// The initial list streams (WatchList) and reaches the queue as one
	// item; the queue still counts every object it brought.
	for _, inf := range doc.Informers {
		if !inf.Reflector.ListStreamed || inf.Queue.Added < uint64(inf.Store.Objects) {
			t.Errorf("%s: list streamed %t, queue added %d for %d objects; want a streamed list counted object by object",
				inf.Name, inf.Reflector.ListStreamed, inf.Queue.Added, inf.Store.Objects)
		}
	}
}

// A user who may read configmaps but not pods: configmaps sync, pods say
// why not, and the process ends as soon as configmaps synced, not after
// --timeout (the access check's answer is final), with exit code 1 and
// the JSON printed.
func TestOnceRestrictedUser(t *testing.T) {
	c := kubetest.Shared(t)
	seed(t, c, "restricted")
	kc := c.RestrictedUser(t, "restricted", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	bin := buildInformtop(t, t.TempDir())
	code, stdout, stderr, took := informtop(t, bin, "--kubeconfig", kc, "--once", "--json", "-r", "configmaps,pods", "--timeout", "60s")
	t.Logf("a denied resource: --once ended after %s (--timeout 60s)", took)
	if code != 1 || took > 15*time.Second {
		t.Fatalf("exit %d after %s; want 1 without waiting out --timeout 60s; stderr: %s", code, took, stderr)
	}
	var doc clusterJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Synced || len(doc.Informers) != 2 || !doc.Informers[0].Synced || doc.Informers[1].Synced {
		t.Fatalf("report %+v", doc)
	}
	// What it covers, for a script comparing clusters: the context, the
	// server, the namespace, when, by which build; per informer its API.
	if doc.Context == "" || !strings.HasPrefix(doc.Server, "https://127.0.0.1:") || doc.Namespace != "restricted" || doc.AllNamespaces ||
		time.Since(doc.Time) > time.Minute || doc.InformtopVersion == "" {
		t.Errorf("scope: context %q, server %q, namespace %q (all %t), time %v, version %q", doc.Context, doc.Server, doc.Namespace, doc.AllNamespaces, doc.Time, doc.InformtopVersion)
	}
	if inf := doc.Informers[0]; inf.Namespace != "restricted" || inf.Group != "" || inf.Version != "v1" {
		t.Errorf("configmaps watched in %q, group %q, version %q; want restricted, the core group, v1", inf.Namespace, inf.Group, inf.Version)
	}
	why := doc.Informers[1].NotSyncedReason
	for _, want := range []string{"denied", "list", "pods", "restricted"} {
		if !strings.Contains(why, want) {
			t.Errorf("notSyncedReason %q lacks %q", why, want)
		}
	}
	if !strings.Contains(stderr, "not every informer can sync") || !strings.Contains(stderr, "informtop: pods: denied") {
		t.Errorf("stderr does not explain the exit code and why: %s", stderr)
	}
	// Nor may it get namespaces: whether "restricted" exists is unknown,
	// and said, and the rest goes on.
	if !strings.Contains(stderr, "whether namespace restricted exists could not be checked") {
		t.Errorf("stderr does not say the namespace could not be checked: %s", stderr)
	}
	// Nor may this user read the API server's /metrics: its figures are
	// only why not, naming the permission, with no zeros posing as counts.
	for _, inf := range doc.Informers {
		var reason string
		if len(inf.Server) != 2 || string(inf.Server["available"]) != "false" || json.Unmarshal(inf.Server["reason"], &reason) != nil ||
			!strings.Contains(reason, "get on the non-resource URL /metrics") || !strings.Contains(reason, "system:monitoring") {
			t.Errorf("%s: server %s, want only available false and the permission", inf.Name, inf.Server)
		}
	}
}

// Errors a user meets before anything runs: each a sentence, exit code 2,
// no hang, not even on a server that accepts connections and never answers.
func TestClusterErrors(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
		}
	}()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--kubeconfig", c.Kubeconfig, "-r", "podz", "--once"}, []string{`no resource "podz"`, "did you mean", "pods"}},
		{[]string{"--kubeconfig", c.Kubeconfig, "--token", "not-a-token", "--once"}, []string{"401", "credentials"}},
		{[]string{"--kubeconfig", c.Kubeconfig, "-n", "nope", "--once"}, []string{"-n nope", "namespace nope does not exist", "pass one that exists"}},
		{[]string{"--kubeconfig", c.Kubeconfig, "--context", "nope", "--once"}, []string{`no context "nope"`, "it has", "pass one of them to --context"}},
		{[]string{"--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify", "--once"}, []string{"cannot reach the API server", "127.0.0.1:1"}},
		{[]string{"--kubeconfig", filepath.Join(t.TempDir(), "missing"), "--once"}, []string{"kubeconfig", "missing"}},
		{[]string{"--server", "https://" + silent.Addr().String(), "--insecure-skip-tls-verify", "--request-timeout", "2s", "--once"},
			[]string{"the API server at", silent.Addr().String(), "could not be used"}},
	} {
		code, _, stderr, took := informtop(t, bin, tc.args...)
		if code != 2 || took > 30*time.Second {
			t.Errorf("%v: exit %d after %s, want 2 at once; stderr %s", tc.args, code, took, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, w)
			}
		}
	}
}

// The dashboard on a real API server, as a restricted user would see it in
// a terminal: the pipeline, why pods is not synced, a configmap's YAML, and
// a server-fault key that explains it does nothing here.
func TestDashboardOnARealCluster(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Shared(t)
	seed(t, c, "dashboard")
	kc := c.RestrictedUser(t, "dashboard", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "kube"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s --kubeconfig %s -r configmaps,pods; echo $? > %s",
		t.TempDir(), t.TempDir(), bin, kc, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	tm.waitFor("the pipeline of the synced configmaps informer", func(s string) bool {
		return strings.Contains(s, "kube") && strings.Contains(s, "configmaps") && strings.Contains(s, "Reflector") &&
			strings.Contains(s, "✓ synced")
	})
	tm.keys(":")
	tm.waitFor("the switcher saying why pods is not synced", func(s string) bool {
		return strings.Contains(s, "pods") && strings.Contains(s, "denied")
	})
	tm.literal("pods")
	tm.keys("Enter")
	screen := tm.waitFor("the header saying why pods is not synced", func(s string) bool {
		return strings.Contains(s, "not synced: denied") && strings.Contains(s, "may not list")
	})
	// Refused is not down: the server answered.
	if title := firstLine(screen); !strings.Contains(title, "no watch · ✗ forbidden") || strings.Contains(screen, "watch down") {
		t.Errorf("a refused informer's title %q (or the screen) says its watch is down:\n%s", title, screen)
	}

	tm.keys(":")
	tm.literal("configmaps")
	tm.keys("Enter", "4")
	tm.waitFor("the store of configmaps", func(s string) bool { return strings.Contains(s, "dashboard/x-0") })
	tm.keys("Enter")
	tm.waitFor("a configmap's YAML", func(s string) bool {
		return strings.Contains(s, "ConfigMap") && strings.Contains(s, "data:") && strings.Contains(s, "k: v")
	})
	// Escape and w in one burst would read as alt+w: wait for the list.
	tm.keys("Escape")
	tm.waitFor("the store list again", func(s string) bool { return strings.Contains(s, "KEY") && strings.Contains(s, "dashboard/x-1") })
	tm.keys("w")
	tm.waitFor("the drop-watch key explaining itself", func(s string) bool {
		return strings.Contains(s, "does nothing on kube")
	})
	// Is the cache right? v lists the server at the cache's version.
	tm.keys("v")
	tm.waitFor("verify's answer", func(s string) bool {
		return strings.Contains(s, "configmaps: cache equals the server at RV") && strings.Contains(s, "(3 objects)")
	})
	// This user may not read the API server's metrics: the pipeline says
	// which permission would show them.
	tm.keys("1")
	tm.waitFor("the server figures' permission sentence", func(s string) bool {
		return strings.Contains(s, "non-resource URL /metrics")
	})

	tm.keys("q")
	tm.waitExit(exitFile)
}

// `informtop --once --verify --json` through a proxy that loses a MODIFIED
// and a DELETED watch event while informtop runs: exit 3, and the JSON
// names exactly those two keys, stale and extra.
func TestOnceVerifyFindsLostEvents(t *testing.T) {
	c := kubetest.Shared(t)
	ns := "once-verify"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	cms := cs.CoreV1().ConfigMaps(ns)
	for _, name := range []string{"kept", "changed", "deleted"} {
		if _, err := cms.Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	proxy := c.DropProxy(t)
	proxy.DropNext("MODIFIED", ns, "changed")
	proxy.DropNext("DELETED", ns, "deleted")
	bin := buildInformtop(t, t.TempDir())
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr, _ := informtop(t, bin, "--kubeconfig", proxy.Kubeconfig, "-n", ns, "-r", "configmaps",
			"--watch-list", "off", "--once", "--json", "--verify", "--duration", "6s")
		done <- result{code, stdout, stderr}
	}()
	waitfor.Within(t, 60*time.Second, "informtop to open its watch through the proxy", func() (bool, string) {
		return proxy.Watches() > 0, ""
	})
	if _, err := cms.Update(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "changed"}, Data: map[string]string{"a": "b"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(bg, "deleted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A later event the informer does get moves its cache past the losses.
	if _, err := cms.Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "later"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 3 {
		t.Fatalf("exit %d, want 3; dropped %v; stderr: %s\n%s", r.code, proxy.Dropped(), r.stderr, r.stdout)
	}
	var doc struct {
		Informers []struct {
			Verify struct {
				Equal                 bool   `json:"equal"`
				ResourceVersion       string `json:"resourceVersion"`
				Objects               int    `json:"objects"`
				Missing, Extra, Stale []string
			} `json:"verify"`
		} `json:"informers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Informers) != 1 {
		t.Fatalf("JSON %v:\n%s", err, r.stdout)
	}
	v := doc.Informers[0].Verify
	if v.Equal || v.Objects != 3 || v.ResourceVersion == "" || len(v.Missing) != 0 ||
		!slices.Equal(v.Stale, []string{ns + "/changed"}) || !slices.Equal(v.Extra, []string{ns + "/deleted"}) {
		t.Errorf("verify %+v", v)
	}
	if !strings.Contains(r.stderr, "cache differs from the server") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// clusterNamespace creates namespace ns on c and returns an admin client.
func clusterNamespace(t *testing.T, c *kubetest.Cluster, ns string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cs
}
