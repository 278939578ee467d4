package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/internal/kubetest"
)

// A k9s user changes what informtop watches without leaving it, against a
// real API server: ":svc" adds services and shows them, ":ns other" moves
// the namespaced informers, ":ctx second" connects through the
// kubeconfig's other context (its own namespace), and a typo says so.
func TestExploreLiveInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Shared(t)
	bg := context.Background()
	var cs = clusterNamespace(t, c, "explore-a")
	clusterNamespace(t, c, "explore-b")
	clusterNamespace(t, c, "explore-c")
	for _, ns := range []string{"explore-a", "explore-b", "explore-c"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-" + ns}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc-" + ns}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		if _, err := cs.CoreV1().Services(ns).Create(bg, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	kc := twoContexts(t, c.Kubeconfig, filepath.Join(dir, "kubeconfig"), "explore-c")
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "explore"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s --kubeconfig %s -n explore-a -r configmaps; echo $? > %s",
		t.TempDir(), t.TempDir(), bin, kc, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	tm.waitFor("the synced configmaps informer", func(s string) bool {
		return strings.Contains(s, "configmaps") && strings.Contains(s, "✓ synced")
	})
	tm.keys("4")
	tm.waitFor("the configmaps of explore-a", func(s string) bool { return strings.Contains(s, "explore-a/cm-explore-a") })

	tm.keys(":")
	tm.literal("svc")
	tm.keys("Enter")
	tm.waitFor("services listed in the Store", func(s string) bool {
		return strings.Contains(s, "explore-a/svc-explore-a") && strings.Contains(s, "services")
	})

	tm.keys(":")
	tm.literal("ns explore-b")
	tm.keys("Enter")
	tm.waitFor("the services of explore-b, the header saying so", func(s string) bool {
		return strings.Contains(s, "explore-b/svc-explore-b") && !strings.Contains(s, "explore-a/svc-explore-a") &&
			strings.Contains(firstLine(s), "services(explore-b)[1]")
	})
	tm.keys(":")
	tm.literal("configmaps")
	tm.keys("Enter")
	tm.waitFor("the configmaps of explore-b", func(s string) bool {
		return strings.Contains(s, "explore-b/cm-explore-b") && !strings.Contains(s, "explore-a/cm-explore-a")
	})

	tm.keys(":")
	tm.literal("servces")
	tm.keys("Enter")
	tm.waitFor("the typo's sentence", func(s string) bool {
		return strings.Contains(s, `no resource "servces"`) && strings.Contains(s, "did you mean")
	})

	tm.keys(":")
	tm.literal("ctx second")
	tm.keys("Enter")
	tm.waitFor("the second context's configmaps, in its own namespace, the header saying so", func(s string) bool {
		return strings.Contains(s, "explore-c/cm-explore-c") && strings.Contains(s, "switched to context second") &&
			strings.Contains(firstLine(s), "second › configmaps(explore-c)[1]")
	})
	tm.keys(":")
	tm.literal("services")
	tm.keys("Enter")
	tm.waitFor("services kept across the context switch", func(s string) bool {
		return strings.Contains(s, "explore-c/svc-explore-c")
	})

	tm.keys("q")
	tm.waitExit(exitFile)
}

// twoContexts writes a copy of the kubeconfig at from with a second
// context, "second", on the same cluster and user in namespace ns.
func twoContexts(t *testing.T, from, to, ns string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		t.Fatal(err)
	}
	cur := cfg.Contexts[cfg.CurrentContext]
	second := *cur
	second.Namespace = ns
	cfg.Contexts["second"] = &second
	if err := clientcmd.WriteToFile(*cfg, to); err != nil {
		t.Fatal(err)
	}
	return to
}
