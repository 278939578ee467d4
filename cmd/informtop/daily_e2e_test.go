package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
)

// A k9s user's day on a real API server, at 80×24 and 160×48: the header
// says where they are after :ns, 0 and enter on a namespace; the filter
// finds Pending pods by their STATUS and refuses a broken regexp; S sorts
// by STATUS; d describes with kubectl's describers (a Secret by sizes
// only); l follows a container's log through pods/log (kwok serves it
// from a file); an empty namespace keeps kubectl's columns and says where
// it looked; an unbound k9s key says why not.
func TestDailyExplorerInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Shared(t)
	node := kwoktest.Start(t, c)
	const ns, empty = "daily-shop", "daily-empty"
	cs := clusterNamespace(t, c, ns)
	clusterNamespace(t, c, empty)
	bg := context.Background()
	dir := t.TempDir()
	serverLog, proxyLog := filepath.Join(dir, "server.log"), filepath.Join(dir, "proxy.log")
	now := time.Now()
	writeFile(t, serverLog, kwoktest.CRILine(now, "server listening on :8080")+kwoktest.CRILine(now, "GET /healthz 200"))
	writeFile(t, proxyLog, kwoktest.CRILine(now, "proxy ready"))
	node.Pod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api-0"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "server", Image: "shop/api"}, {Name: "proxy", Image: "shop/proxy"}}}}, nil)
	node.Logs(t, ns, "api-0", map[string]string{"server": serverLog, "proxy": proxyLog}, "proxy ready")
	// No node and no scheduler: Pending for good.
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "shop/web"}}}}
	if _, err := cs.CoreV1().Pods(ns).Create(bg, pending, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Data: map[string][]byte{"password": []byte("hunter2")}}
	if _, err := cs.CoreV1().Secrets(ns).Create(bg, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bin := buildInformtop(t, dir)

	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tm := &tmux{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock"), session: "daily"}
			exitFile := filepath.Join(t.TempDir(), "exit-code")
			cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s --kubeconfig %s -n %s -r pods; echo $? > %s",
				t.TempDir(), t.TempDir(), bin, c.Kubeconfig, ns, exitFile)
			tm.run("new-session", "-d", "-s", tm.session, "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]), cmd)
			t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

			tm.waitFor("the header naming the namespace and count", func(s string) bool {
				return strings.Contains(firstLine(s), "pods("+ns+")[2]") && strings.Contains(s, "✓ synced")
			})
			tm.keys("4")
			tm.waitFor("both pods with kubectl's STATUS", func(s string) bool {
				return strings.Contains(s, "Pending") && strings.Contains(s, "Running") && strings.Contains(s, "STATUS")
			})

			// The filter searches every cell: STATUS too.
			tm.keys("/")
			tm.literal("Pending")
			tm.waitFor("only the Pending pod", func(s string) bool {
				return strings.Contains(s, ns+"/web-1") && !strings.Contains(s, ns+"/api-0")
			})
			tm.keys("Escape")
			tm.keys("/")
			tm.literal("web-(0|1")
			tm.waitFor("the broken regexp refused", func(s string) bool {
				return strings.Contains(s, "/web-(0|1 ") && strings.Contains(s, "not a regular expression: missing closing )")
			})
			tm.keys("Escape")

			// S sorts by STATUS, again reverses.
			tm.keys("S")
			s := tm.waitFor("sorted by STATUS", func(s string) bool { return strings.Contains(s, "by STATUS ↑") })
			if strings.Index(s, ns+"/web-1") > strings.Index(s, ns+"/api-0") {
				t.Errorf("Pending does not sort before Running:\n%s", s)
			}
			tm.keys("S")
			s = tm.waitFor("sorted by STATUS, reversed", func(s string) bool { return strings.Contains(s, "by STATUS ↓") })
			if strings.Index(s, ns+"/api-0") > strings.Index(s, ns+"/web-1") {
				t.Errorf("S again does not reverse:\n%s", s)
			}

			// d: kubectl describe, events included; esc back.
			tm.keys("g", "d")
			tm.waitFor("api-0 described", func(s string) bool {
				return strings.Contains(s, "describe pods/api-0 -n "+ns) && strings.Contains(s, "Containers:")
			})
			tm.keys("G")
			tm.waitFor("the describe's events", func(s string) bool { return strings.Contains(s, "Events:") })
			tm.keys("Escape")

			// l: pick the container, then follow its log.
			tm.keys("l")
			tm.waitFor("the containers to pick", func(s string) bool {
				return strings.Contains(s, "pick a container") && strings.Contains(s, "server") && strings.Contains(s, "proxy")
			})
			tm.keys("j", "Enter") // server is listed first, as the pod spec has it
			tm.waitFor("the proxy's log", func(s string) bool {
				return strings.Contains(s, "container proxy") && strings.Contains(s, "proxy ready")
			})
			appendFile(t, proxyLog, kwoktest.CRILine(time.Now(), "proxy: upstream api-0:8080 healthy"))
			tm.waitFor("a line written after it opened", func(s string) bool { return strings.Contains(s, "upstream api-0:8080 healthy") })
			tm.keys("Escape")

			// An unbound k9s key says why not, once.
			tm.keys("e")
			tm.waitFor("e's k9s meaning", func(s string) bool { return strings.Contains(s, "e edits the object in k9s") })

			// Secrets: described by sizes, never values.
			tm.keys(":")
			tm.literal("secrets")
			tm.keys("Enter")
			tm.waitFor("the secret listed, unsorted", func(s string) bool {
				return strings.Contains(firstLine(s), "secrets("+ns+")[1]") && strings.Contains(s, ns+"/db") && !strings.Contains(s, "by STATUS")
			})
			tm.keys("d")
			s = tm.waitFor("the secret described", func(s string) bool { return strings.Contains(s, "password:  7 bytes") })
			if strings.Contains(s, "hunter2") || strings.Contains(s, "aHVudGVy") {
				t.Errorf("describe shows the secret's value:\n%s", s)
			}
			tm.keys("Escape")

			// An empty namespace: where it looked, and kubectl's columns.
			tm.keys(":")
			tm.literal("ns " + empty)
			tm.keys("Enter")
			tm.waitFor("the empty namespace named", func(s string) bool {
				return strings.Contains(firstLine(s), "secrets("+empty+")[0]") && strings.Contains(squashed(s), squashed("no secrets in namespace "+empty))
			})
			tm.keys(":")
			tm.literal("pods")
			tm.keys("Enter")
			tm.waitFor("the empty pods keep READY and STATUS", func(s string) bool {
				return strings.Contains(firstLine(s), "pods("+empty+")[0]") && strings.Contains(s, "READY") && strings.Contains(s, "STATUS")
			})

			// 0: every namespace; enter on a namespace goes into it.
			tm.keys("0")
			tm.waitFor("every namespace", func(s string) bool { return strings.Contains(firstLine(s), "pods(all)[") })
			tm.keys(":")
			tm.literal("namespaces")
			tm.keys("Enter")
			tm.waitFor("the namespaces", func(s string) bool {
				return strings.Contains(s, ns) && strings.Contains(firstLine(s), "namespaces(all)")
			})
			tm.keys("/")
			tm.literal("^" + ns + "$")
			tm.keys("Enter")
			tm.waitFor("the namespace filtered", func(s string) bool { return strings.Contains(s, "1 of") })
			tm.keys("Enter")
			tm.waitFor("its pods, in it", func(s string) bool {
				return strings.Contains(firstLine(s), "pods("+ns+")[2]") && strings.Contains(s, ns+"/api-0")
			})

			tm.keys("q")
			tm.waitExit(exitFile)
		})
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// squashed drops every space, so a sentence wrapped across lines matches.
func squashed(s string) string { return strings.Join(strings.Fields(s), "") }

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
