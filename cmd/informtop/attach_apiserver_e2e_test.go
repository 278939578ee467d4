package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
)

// controllerPod is a controller's pod as its Deployment would make it: a
// pod on the kwok node, labelled for the Deployment's selector, whose
// container port (named portName) kwok forwards to addr, where the
// example controller, running on this machine, serves.
func controllerPod(ns, name, app, portName string, port int32) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "manager", Image: "example.com/" + app,
			Ports: []corev1.ContainerPort{{Name: portName, ContainerPort: port, Protocol: corev1.ProtocolTCP}},
		}}},
	}
}

// controllerObjects creates the Deployment and the Service of app in ns,
// as a controller's manifests declare them (no controller manager runs:
// the test creates the pods itself).
func controllerObjects(t testing.TB, cs kubernetes.Interface, ns, app, portName string, port int32) {
	t.Helper()
	labels := map[string]string{"app": app}
	bg := context.Background()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: controllerPod(ns, "", app, portName, port).Spec},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(bg, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app + "-metrics"},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{
			{Name: "metrics", Port: 443, TargetPort: intstr.FromString(portName)},
		}},
	}
	if _, err := cs.CoreV1().Services(ns).Create(bg, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// hostPort is the host:port of an example's announced agent URL.
func hostPort(t *testing.T, agentURL string) string {
	t.Helper()
	if !strings.Contains(agentURL, "://") {
		return agentURL
	}
	u, err := url.Parse(agentURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// attachKube runs informtop attach with a kubeconfig and returns its exit
// code, report (when it printed one) and stderr.
func attachKube(t *testing.T, bin, kubeconfig string, args ...string) (int, stuckJSON, string, time.Duration) {
	t.Helper()
	code, stdout, stderr, took := informtop(t, bin, append([]string{"attach", "--kubeconfig", kubeconfig, "--once", "--json", "--timeout", "20s"}, args...)...)
	var doc stuckJSON
	if code == 0 || code == 5 {
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("attach %v printed no JSON (exit %d): %v\n%s\n%s", args, code, err, stdout, stderr)
		}
	}
	return code, doc, stderr, took
}

// waitStuck runs attach until its report shows a listener inside a
// callback, in the frame of want, and returns that report.
func waitStuck(t *testing.T, bin, kubeconfig, want string, args ...string) stuckJSON {
	t.Helper()
	var result stuckJSON
	waitfor.Every(t, 200*time.Millisecond, 90*time.Second, fmt.Sprintf("attach %v to name %s as the stuck frame", args, want), func() (bool, string) {
		code, doc, stderr, _ := attachKube(t, bin, kubeconfig, args...)
		if code == 2 {
			t.Fatalf("attach %v refused: %s", args, stderr)
		}
		for _, inf := range doc.Informers {
			for _, l := range inf.Listeners {
				if l.Frame != nil && l.Frame.Function == want && l.InCallback != "" {
					result = doc
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("exit %d, %+v, stderr %s", code, doc, stderr)
	})
	return result
}

// A client-go controller in a pod, its agent on the pod's loopback behind
// a port named informtop: attach -n NS pod/…, deploy/… and svc/… reach it
// through the API server and name the function its handler hangs in.
func TestAttachThroughTheAPIServerToAClientGoController(t *testing.T) {
	c := kubetest.Shared(t)
	node := kwoktest.Start(t, c)
	const ns = "tunnel-clientgo"
	cs := clusterNamespace(t, c, ns)
	release := filepath.Join(t.TempDir(), "release")
	ctl := startController(t, c.Kubeconfig, ns, release, "127.0.0.1:0")
	controllerObjects(t, cs, ns, "ctrl", "informtop", 6060)
	node.Pod(t, controllerPod(ns, "ctrl-a", "ctrl", "informtop", 6060), map[int32]string{6060: hostPort(t, ctl.Addr())})
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), deployment(ns, "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bin := buildInformtop(t, t.TempDir())

	began := time.Now()
	doc := waitStuck(t, bin, c.Kubeconfig, "main.(*Controller).misbehave", "-n", ns, "pod/ctrl-a")
	t.Logf("pod/ctrl-a: the stuck frame %s after the first attach began", time.Since(began).Round(time.Millisecond))
	if doc.Informers[0].Name == "" {
		t.Errorf("report %+v names no informer", doc)
	}
	for _, target := range []string{"deploy/ctrl", "svc/ctrl-metrics", "deployment/ctrl:informtop", "pod/ctrl-a:6060"} {
		waitStuck(t, bin, c.Kubeconfig, "main.(*Controller).misbehave", "-n", ns, target)
	}
	code, _, stderr, took := attachKube(t, bin, c.Kubeconfig, "-n", ns, "deploy/ctrl", "--fail-on-stall", "1s")
	if code != 5 {
		t.Errorf("attach deploy/ctrl --fail-on-stall 1s during the stall: exit %d, want 5\n%s", code, stderr)
	}
	t.Logf("attach -n %s deploy/ctrl --once --fail-on-stall: exit %d in %s", ns, code, took.Round(time.Millisecond))
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The sentences attach says, at once and with exit 2, when the way to the
// agent is closed: nothing by that name, no running pod, a port the pod
// does not declare, nothing listening on the port, RBAC without
// pods/portforward.
func TestAttachThroughTheAPIServerRefusesInSentences(t *testing.T) {
	c := kubetest.Shared(t)
	node := kwoktest.Start(t, c)
	const ns = "tunnel-refused"
	cs := clusterNamespace(t, c, ns)
	controllerObjects(t, cs, ns, "ctrl", "informtop", 6060)
	bin := buildInformtop(t, t.TempDir())
	refused := func(kubeconfig string, want []string, args ...string) {
		t.Helper()
		code, _, stderr, took := attachKube(t, bin, kubeconfig, append([]string{"-n", ns}, args...)...)
		if code != 2 {
			t.Errorf("attach %v: exit %d, want 2\n%s", args, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("attach %v said %q; want it to say %q", args, stderr, w)
			}
		}
		t.Logf("attach %v: exit %d in %s", args, code, took.Round(time.Millisecond))
	}
	refused(c.Kubeconfig, []string{`there is no deploy "nope" in namespace ` + ns}, "deploy/nope")
	refused(c.Kubeconfig, []string{"deploy/ctrl in " + ns + " has no pods"}, "deploy/ctrl")

	// A pod whose port forwards to an address where nothing listens.
	node.Pod(t, controllerPod(ns, "ctrl-a", "ctrl", "informtop", 6060), nil)
	refused(c.Kubeconfig, []string{`declares no port named "metrics"`, "informtop 6060/TCP (container manager)"}, "pod/ctrl-a:metrics")
	refused(c.Kubeconfig, []string{"port 6060 of pod " + ns + "/ctrl-a"}, "deploy/ctrl")

	// A user who may find the pod but not port-forward to it.
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}},
	})
	refused(kc, []string{"does not let you port-forward", `resources: ["pods/portforward"], verbs: ["create"]`}, "deploy/ctrl")
}

// A controller-runtime manager as kubebuilder scaffolds it: its metrics
// server on TLS behind the authentication and authorization filter, the
// agent mounted in it with no token of its own. attach sends the
// kubeconfig's token through the port-forward; a user without the
// non-resource rule hears which rule, a wrong token is named as such,
// and with the ClusterRole the docs give the user sees the stuck frame.
// A dashboard attached to deploy/… follows the pod that replaces its own.
func TestAttachThroughTheAPIServerBehindControllerRuntimesFilter(t *testing.T) {
	c := kubetest.Shared(t)
	node := kwoktest.Start(t, c)
	const ns = "tunnel-cr"
	cs := clusterNamespace(t, c, ns)
	release := filepath.Join(t.TempDir(), "release")
	ctl := startCRExample(t, c.Kubeconfig, ns, "--metrics-secure", "--block-labelled", "--release-file", release)
	if !strings.HasPrefix(ctl.Addr(), "https://") {
		t.Fatalf("the manager announced %s; want its metrics server on https", ctl.Addr())
	}
	controllerObjects(t, cs, ns, "mgr", "https", 8443)
	forward := map[int32]string{8443: hostPort(t, ctl.Addr())}
	node.Pod(t, controllerPod(ns, "mgr-a", "mgr", "https", 8443), forward)
	bg := context.Background()
	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held", Labels: map[string]string{"informtop.example/block": "true"}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bin := buildInformtop(t, t.TempDir())

	began := time.Now()
	waitStuck(t, bin, c.Kubeconfig, "main.blockIfLabelled", "-n", ns, "deploy/mgr")
	t.Logf("deploy/mgr behind the filter: the stuck frame %s after the first attach began", time.Since(began).Round(time.Millisecond))

	// A token the cluster never issued, given instead of the kubeconfig's.
	bogus := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(bogus, []byte("not-a-token-this-cluster-issued\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr, _ := attachKube(t, bin, c.Kubeconfig, "-n", ns, "deploy/mgr", "--token-file", bogus)
	if code != 2 || !strings.Contains(stderr, "rejected the token given with --token-file") {
		t.Errorf("attach with a bogus --token-file: exit %d, %q; want 2 and the token named as rejected", code, stderr)
	}

	// Users who may port-forward; one of them also has the rule
	// docs/attach-in-cluster.md gives. (The filter caches a denial for
	// 30 s, so the one refused is not the one granted.)
	rules := []rbacv1.PolicyRule{
		{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"pods/portforward"}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}},
	}
	denied := c.RestrictedUser(t, ns, rules)
	code, _, stderr, _ = attachKube(t, bin, denied, "-n", ns, "deploy/mgr")
	if code != 2 || !strings.Contains(stderr, "403 Forbidden") || !strings.Contains(stderr, `nonResourceURLs: ["/debug/informtop/*"], verbs: ["get"]`) {
		t.Errorf("attach as a user without the non-resource rule: exit %d, %q; want 2 and the rule named", code, stderr)
	}
	allowed := c.RestrictedUser(t, ns, rules)
	grantAgentPath(t, cs, allowed)
	waitStuck(t, bin, allowed, "main.blockIfLabelled", "-n", ns, "deploy/mgr")

	// The dashboard on deploy/mgr: the pod goes, its replacement comes (as
	// the ReplicaSet controller would make it), and the header follows.
	dir := t.TempDir()
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "tunnel"}
	home := t.TempDir() // an empty config: no user's key map
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s attach --kubeconfig %s -n %s deploy/mgr", home, home, bin, c.Kubeconfig, ns)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { tm.run("kill-server") })
	tm.waitFor("the header naming mgr-a and the manager", func(s string) bool {
		return strings.Contains(s, ns+"/mgr-a (deploy/mgr)") && strings.Contains(s, "via API server") && strings.Contains(s, "configmaps")
	})
	tm.keys("3")
	tm.waitFor("the Listeners view naming the stuck function", func(s string) bool {
		return strings.Contains(s, "STALLED") && strings.Contains(s, "main.blockIfLabelled")
	})
	node.DeletePod(t, ns, "mgr-a")
	node.Pod(t, controllerPod(ns, "mgr-b", "mgr", "https", 8443), forward)
	screen := tm.waitFor("the header naming mgr-b", func(s string) bool {
		return strings.Contains(s, ns+"/mgr-b (deploy/mgr)")
	})
	if !strings.Contains(screen, "pod mgr-a was deleted; attached to mgr-b") {
		t.Logf("the screen after the move does not say which pod went (it may have scrolled):\n%s", screen)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// grantAgentPath binds the service account of kubeconfig to a ClusterRole
// allowing get on the agent's non-resource URLs (the rule
// docs/attach-in-cluster.md gives), and waits until the authorizer
// applies it.
func grantAgentPath(t *testing.T, admin kubernetes.Interface, kubeconfig string) {
	t.Helper()
	raw, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	user := ""
	for name := range raw.AuthInfos {
		user = name
	}
	parts := strings.Split(user, ":") // system:serviceaccount:NS:NAME
	if len(parts) != 4 {
		t.Fatalf("the restricted kubeconfig's user %q is not a service account", user)
	}
	bg := context.Background()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "informtop-agent-reader-" + parts[3]},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/debug/informtop/*"}, Verbs: []string{"get"}}},
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(bg, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: parts[2], Name: parts[3]}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(bg, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.RbacV1().ClusterRoleBindings().Delete(bg, binding.Name, metav1.DeleteOptions{})
		_ = admin.RbacV1().ClusterRoles().Delete(bg, role.Name, metav1.DeleteOptions{})
	})
	// The authorizer applies a new binding a moment after it is created.
	err = wait.PollUntilContextTimeout(bg, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  user,
			Groups:                []string{"system:serviceaccounts", "system:authenticated"},
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/debug/informtop/informtop/v1/frame", Verb: "get"},
		}}
		got, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("the ClusterRole for the agent's path was not applied to %s within 30s: %v", user, err)
	}
}
