package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
)

// startCRExample builds examples/controller-runtime-manager and starts it,
// returning once its metrics server, with the agent mounted, listens. Its stderr is read through a pipe the
// process does not own, so Wait returns only once every line is read.
func startCRExample(t *testing.T, kubeconfig, ns string, extra ...string) (*controllerProcess, *io.PipeWriter) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "controller-runtime-manager")
	build := exec.Command("go", "build", "-o", bin, "./controller-runtime-manager")
	build.Dir = filepath.Join("..", "..", "examples")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}
	p := &controllerProcess{done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--namespace", ns, "--agent-addr", "127.0.0.1:0"}, extra...)...)
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		defer close(p.done)
		re := regexp.MustCompile(`^agent listening on (\S+)$`)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.lines = append(p.lines, line)
			p.mu.Unlock()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case listening <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() {
		p.once.Do(func() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			_ = p.cmd.Wait()
			_ = pw.Close()
			<-p.done
		})
	})
	select {
	case p.addr = <-listening:
	case <-time.After(90 * time.Second):
		t.Fatalf("the manager's agent did not listen; its log:\n%s", strings.Join(p.log(), "\n"))
	}
	return p, pw
}

// The controller-runtime example: its cache's informers run on the engine,
// informtop attach, through the manager's metrics server, sees the
// ConfigMap informer synced with the controller's handler on it, every ConfigMap is reconciled, and SIGTERM
// stops it cleanly.
func TestControllerRuntimeExample(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "crexample"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	names := []string{"alpha", "beta", "gamma"}
	for _, n := range names {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}, Data: map[string]string{"k": n}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctl, pw := startCRExample(t, c.Kubeconfig, ns)
	bin := buildInformtop(t, t.TempDir())

	// The agent is mounted in the metrics server before any informer
	// exists: the ConfigMap informer is built when the controller starts,
	// and served because the cache's hook adds it to the agent's Set. The
	// address is a URL with the mount path, which attach accepts as is.
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.addr, "--once", "--json", "--timeout", "30s")
		var doc attachJSON
		var store crStoreJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("attach --once --json printed no JSON (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &store); err != nil {
			t.Fatal(err)
		}
		ok, why := crExampleReport(code, doc, store)
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("attach: %s: exit %d, %+v\nstderr: %s\nthe manager's log:\n%s", why, code, doc, stderr, strings.Join(ctl.log(), "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The agent's collector is in controller-runtime's registry: the
	// manager's own /metrics, beside the agent, has informtop's series.
	base, ok := strings.CutSuffix(ctl.addr, "/debug/informtop/")
	if !ok {
		t.Fatalf("the agent is at %s, not under the metrics server's /debug/informtop/", ctl.addr)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `informtop_store_objects{group="",name="configmaps"`) {
		t.Fatalf("the manager's /metrics: %s, %v, no informtop_store_objects for configmaps in:\n%s", resp.Status, err, body)
	}

	reconciledRE := regexp.MustCompile(`"reconciled ` + ns + `/([a-z]+)"`)
	reconciled := func() map[string]bool { return ctl.reconciled(reconciledRE) }
	deadline = time.Now().Add(30 * time.Second)
	for {
		seen := reconciled()
		missing := 0
		for _, n := range names {
			if !seen[n] {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d configmaps not reconciled; the manager's log:\n%s", missing, len(names), strings.Join(ctl.log(), "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	// SIGTERM: the manager stops its controller, cache and agent and exits 0.
	var waitErr error
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		ctl.once.Do(func() {
			if err := ctl.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				waitErr = err
				return
			}
			waitErr = ctl.cmd.Wait()
			_ = pw.Close()
			<-ctl.done
		})
	}()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		_ = ctl.cmd.Process.Kill()
		<-exited
		t.Fatalf("the manager did not exit within 60s of SIGTERM; its log:\n%s", strings.Join(ctl.log(), "\n"))
	}
	if waitErr != nil {
		t.Fatalf("after SIGTERM: %v; want exit 0; its log:\n%s", waitErr, strings.Join(ctl.log(), "\n"))
	}
	if code := ctl.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0; its log:\n%s", code, strings.Join(ctl.log(), "\n"))
	}
	if err := syscall.Kill(ctl.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the manager's process %d is still there after Wait: %v", ctl.cmd.Process.Pid, err)
	}
}

// crExampleReport says whether an attach report shows the ConfigMap
// informer synced with ≥3 objects in its store and controller-runtime's
// handler listener on it synced.
func crExampleReport(code int, doc attachJSON, store crStoreJSON) (bool, string) {
	if code != 0 || doc.Source != "attach" {
		return false, fmt.Sprintf("want exit 0 and source attach, got %d and %q", code, doc.Source)
	}
	for _, inf := range doc.Informers {
		if inf.Name != "configmaps" {
			continue
		}
		if !inf.Synced {
			return false, "the configmaps informer has not synced"
		}
		if n := store.objects("configmaps"); n < 3 {
			return false, fmt.Sprintf("the configmaps informer holds %d objects, want ≥3", n)
		}
		for _, l := range inf.Listeners {
			if strings.Contains(l.Name, "controller-runtime") && l.Synced {
				return true, ""
			}
		}
		return false, "no synced controller-runtime listener on the configmaps informer"
	}
	return false, "no configmaps informer"
}

// crStoreJSON is the store part of the attach report.
type crStoreJSON struct {
	Informers []struct {
		Name  string `json:"name"`
		Store struct {
			Objects int `json:"objects"`
		} `json:"store"`
	} `json:"informers"`
}

func (s crStoreJSON) objects(name string) int {
	for _, inf := range s.Informers {
		if inf.Name == name {
			return inf.Store.Objects
		}
	}
	return -1
}
