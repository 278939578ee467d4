package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// pprofJSON is the part of attach's report a pprof-mode test reads.
type pprofJSON struct {
	Informers []struct {
		Name           string            `json:"name"`
		Implementation string            `json:"implementation"`
		Queue          *json.RawMessage  `json:"queue"`
		Unknown        map[string]string `json:"unknown"`
		Listeners      []struct {
			Name              string             `json:"name"`
			Pending           *int               `json:"pending"`
			InCallback        string             `json:"inCallback"`
			InCallbackSeconds float64            `json:"inCallbackSeconds"`
			InCallbackAtLeast bool               `json:"inCallbackAtLeast"`
			Stalled           bool               `json:"stalled"`
			Frame             *source.StackFrame `json:"frame"`
			Unknown           map[string]string  `json:"unknown"`
		} `json:"listeners"`
	} `json:"informers"`
	Workqueues []struct {
		Name string `json:"name"`
		Adds uint64 `json:"adds"`
	} `json:"workqueues"`
}

// A client-go controller with net/http/pprof and no informtop import,
// its handler held on a labelled ConfigMap: attach ADDR (no --pprof: it
// finds no agent there and reads the goroutine dumps) names the handler,
// the callback, the function and line it is stuck in and "≥ N s";
// --fail-on-stall exits 5 during the stall and 0 after it.
func TestAttachPprofNamesTheStuckHandlerOfAControllerWithoutTheAgent(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	const ns = "pprof-stuck"
	cs := clusterNamespace(t, c, ns)
	release := filepath.Join(t.TempDir(), "release")
	ctl := examplectl.Start(t, examplectl.PprofController, "--kubeconfig", c.Kubeconfig, "--namespace", ns, "--release-file", release)
	addr := strings.TrimPrefix(ctl.Addr(), "http://")

	var last string // the newest attach's output, for a failure
	attachJSON := func(extra ...string) (int, pprofJSON, string) {
		t.Helper()
		args := append([]string{"attach", addr, "--once", "--json", "--dump-interval", "1s", "--timeout", "30s"}, extra...)
		code, stdout, stderr, _ := informtop(t, bin, args...)
		last = fmt.Sprintf("attach %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		var doc pprofJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil && code != 5 {
			t.Fatalf("attach %v: exit %d, no report: %v\n%s\n%s", args, code, err, stdout, stderr)
		}
		return code, doc, stderr
	}
	poll := func(what string, done func() bool) {
		t.Helper()
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) { return done(), nil })
		if err != nil {
			t.Fatalf("waiting for %s: %v; the last %s", what, err, last)
		}
	}
	var doc pprofJSON
	poll("the controller's informer and workqueue", func() bool {
		code, d, _ := attachJSON()
		doc = d
		return code == 0 && len(d.Informers) == 1 && len(d.Workqueues) == 1 && d.Workqueues[0].Name == "configmaps"
	})
	inf := doc.Informers[0]
	if inf.Implementation != source.ImplementationPprof || inf.Queue != nil || inf.Unknown["queue"] == "" {
		t.Errorf("informer %s: implementation %q, queue %s, unknown %v; want %q, a null queue with its reason",
			inf.Name, inf.Implementation, raw(inf.Queue), inf.Unknown, source.ImplementationPprof)
	}
	if l := inf.Listeners; len(l) != 1 || l[0].Pending != nil || !strings.Contains(l[0].Unknown["pending"], "not available without the agent") {
		t.Errorf("listeners %+v; want one, its pending null and why", l)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held", Labels: map[string]string{"informtop.example/block": "true"}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("the stuck handler named", func() bool {
		_, d, _ := attachJSON()
		doc = d
		return len(d.Informers) == 1 && len(d.Informers[0].Listeners) == 1 && d.Informers[0].Listeners[0].InCallbackSeconds >= 1
	})
	l := doc.Informers[0].Listeners[0]
	if l.Name != "main.run" || doc.Informers[0].Name != "main.run" {
		t.Errorf("informer %q, listener %q; want both named as client-go names the handler: main.run", doc.Informers[0].Name, l.Name)
	}
	if l.InCallback != source.CallbackAdd || !l.InCallbackAtLeast || l.Frame == nil ||
		l.Frame.Function != "main.holdWhileLabelled" || filepath.Base(l.Frame.File) != "main.go" || l.Frame.Line == 0 {
		t.Errorf("in %q for %.1f s (at least: %t) in %v; want OnAdd, a lower bound, main.holdWhileLabelled in main.go", l.InCallback, l.InCallbackSeconds, l.InCallbackAtLeast, l.Frame)
	}

	// During the stall --fail-on-stall 1s fails: two dumps a second apart
	// find the same call.
	code, _, stderr := attachJSON("--fail-on-stall", "1s")
	if code != 5 || !strings.Contains(stderr, "has been in OnAdd for ≥ ") || !strings.Contains(stderr, "main.holdWhileLabelled (main.go:") {
		t.Fatalf("attach --fail-on-stall 1s during the stall: exit %d, stderr\n%s\nwant 5 naming OnAdd, ≥ and main.holdWhileLabelled", code, stderr)
	}

	// The dashboard shows it too: the listeners view names the handler,
	// the call's lower bound and the function, and says what needs the
	// agent.
	dir := t.TempDir()
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "pprof"}
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "40",
		fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s attach %s --dump-interval 1s", t.TempDir(), filepath.Join(dir, "none"), bin, addr))
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.waitFor("the note on what needs the agent", func(s string) bool {
		return strings.Contains(s, "not available without the agent") && strings.Contains(s, "goroutine dumps")
	})
	tm.keys("3")
	screen := tm.waitFor("the stuck listener with its lower bound and function", func(s string) bool {
		return strings.Contains(s, "main.run") && strings.Contains(s, "Add ≥") && strings.Contains(s, "main.holdWhileLabelled")
	})
	if testing.Verbose() {
		t.Logf("the listeners view:\n%s", screen)
	}
	tm.keys("q")

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	poll("the handler released", func() bool {
		code, d, _ := attachJSON("--fail-on-stall", "1s")
		return code == 0 && len(d.Informers) == 1 && d.Informers[0].Listeners[0].InCallback == ""
	})
}

func raw(m *json.RawMessage) string {
	if m == nil {
		return "null"
	}
	return string(*m)
}

// A controller-runtime manager with Options.PprofBindAddress and no
// informtop import, its predicate held on a labelled ConfigMap: attach
// --pprof to its pprof port names controller-runtime's EventHandler as
// the listener, OnAdd, the user's function and "≥ N s"; --fail-on-stall
// exits 5 during the stall and 0 after it.
func TestAttachPprofNamesTheStuckPredicateOfAManager(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	const ns = "pprof-manager"
	cs := clusterNamespace(t, c, ns)
	release := filepath.Join(t.TempDir(), "release")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	examplectl.Start(t, examplectl.PprofManager, "--kubeconfig", c.Kubeconfig, "--namespace", ns, "--pprof-addr", addr, "--release-file", release)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held", Labels: map[string]string{"informtop.example/block": "true"}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last string
	attachJSON := func(extra ...string) (int, pprofJSON, string) {
		t.Helper()
		args := append([]string{"attach", addr, "--pprof", "--once", "--json", "--dump-interval", "1s", "--timeout", "30s"}, extra...)
		code, stdout, stderr, _ := informtop(t, bin, args...)
		last = fmt.Sprintf("attach %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		var doc pprofJSON
		_ = json.Unmarshal([]byte(stdout), &doc)
		return code, doc, stderr
	}
	var doc pprofJSON
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) {
		_, d, _ := attachJSON()
		doc = d
		for _, inf := range d.Informers {
			for _, l := range inf.Listeners {
				if l.Frame != nil && l.InCallbackSeconds >= 1 {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("attach --pprof never named the held predicate: %v; the last %s", err, last)
	}
	var found bool
	for _, inf := range doc.Informers {
		for _, l := range inf.Listeners {
			if l.Frame == nil {
				continue
			}
			found = true
			if !strings.HasPrefix(l.Name, "sigs.k8s.io/controller-runtime/pkg/internal/source.EventHandler") || l.InCallback != source.CallbackAdd ||
				!l.InCallbackAtLeast || l.Frame.Function != "main.holdWhileLabelled" || filepath.Base(l.Frame.File) != "main.go" {
				t.Errorf("listener %q in %q (at least: %t) at %+v; want controller-runtime's EventHandler in OnAdd, a lower bound, main.holdWhileLabelled",
					l.Name, l.InCallback, l.InCallbackAtLeast, *l.Frame)
			}
		}
	}
	if !found {
		t.Fatalf("no listener in a call: %s", last)
	}
	if code, _, stderr := attachJSON("--fail-on-stall", "1s"); code != 5 || !strings.Contains(stderr, "main.holdWhileLabelled (main.go:") {
		t.Fatalf("attach --fail-on-stall 1s during the stall: exit %d\n%s\nwant 5 naming main.holdWhileLabelled", code, stderr)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) {
		code, _, _ := attachJSON("--fail-on-stall", "1s")
		return code == 0, nil
	})
	if err != nil {
		t.Fatalf("attach --fail-on-stall 1s after the release never exited 0: %v; the last %s", err, last)
	}
}
