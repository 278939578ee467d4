package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// startCRExample starts the test twin of examples/controller-runtime-manager
// (examples/internal/cmd/controller-runtime-manager), returning once
// its metrics server, with the agent mounted, listens.
func startCRExample(t *testing.T, kubeconfig, ns string, extra ...string) *examplectl.Process {
	t.Helper()
	return startCRExampleAt(t, examplectl.Versions[0], kubeconfig, ns, extra...)
}

// startCRExampleAt is startCRExample built with Kubernetes minor's
// client-go and controller-runtime.
func startCRExampleAt(t *testing.T, minor, kubeconfig, ns string, extra ...string) *examplectl.Process {
	t.Helper()
	args := []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--agent-addr", "127.0.0.1:0"}
	return examplectl.Start(t, examplectl.ControllerRuntimeManager.At(minor), append(args, extra...)...)
}

// The controller-runtime example: its cache's informers are client-go's
// own, built through the agent; informtop attach, through the manager's metrics server, sees the
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
	ctl := startCRExample(t, c.Kubeconfig, ns)
	bin := buildInformtop(t, t.TempDir())

	// The agent is mounted in the metrics server before any informer
	// exists: the ConfigMap informer is built when the controller starts,
	// and served because the cache's hook adds it to the agent's Set. The
	// address is a URL with the mount path, which attach accepts as is.
	waitfor.Every(t, 200*time.Millisecond, 60*time.Second, "attach to report the manager's informer", func() (bool, string) {
		code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--timeout", "30s")
		var doc attachJSON
		var store crStoreJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("attach --once --json printed no JSON (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &store); err != nil {
			t.Fatal(err)
		}
		ok, why := crExampleReport(code, doc, store)
		return ok, fmt.Sprintf("attach: %s: exit %d, %+v\nstderr: %s\nthe manager's log:\n%s", why, code, doc, stderr, strings.Join(ctl.Log(), "\n"))
	})

	// The agent's collector is in controller-runtime's registry: the
	// manager's own /metrics, beside the agent, has informtop's series.
	base, ok := strings.CutSuffix(ctl.Addr(), "/debug/informtop/")
	if !ok {
		t.Fatalf("the agent is at %s, not under the metrics server's /debug/informtop/", ctl.Addr())
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `informtop_informer_store_objects{group="",name="configmaps"`) {
		t.Fatalf("the manager's /metrics: %s, %v, no informtop_informer_store_objects for configmaps in:\n%s", resp.Status, err, body)
	}

	reconciledRE := regexp.MustCompile(`"reconciled ` + ns + `/([a-z]+)"`)
	reconciled := func() map[string]bool { return reconciledKeys(ctl, reconciledRE) }
	waitfor.Every(t, 100*time.Millisecond, 30*time.Second, "every configmap reconciled", func() (bool, string) {
		seen := reconciled()
		missing := 0
		for _, n := range names {
			if !seen[n] {
				missing++
			}
		}
		return missing == 0, fmt.Sprintf("%d of %d configmaps not reconciled; the manager's log:\n%s", missing, len(names), strings.Join(ctl.Log(), "\n"))
	})

	// SIGTERM: the manager stops its controller, cache and agent and exits 0.
	if err := ctl.Stop(); err != nil {
		t.Fatalf("after SIGTERM: %v; want exit 0 within %s (killed: it had not exited by then); its log:\n%s",
			err, examplectl.StopGrace, strings.Join(ctl.Log(), "\n"))
	}
	if err := syscall.Kill(ctl.PID(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the manager's process %d is still there after Stop: %v", ctl.PID(), err)
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

// The examples as a user copies them (examples/client-go-controller and
// examples/controller-runtime-manager/cmd, nothing for tests in them) run
// as their README says, built with every client-go and controller-runtime
// the agent supports: attach shows their informer synced with the
// controller's handler on it, and SIGTERM ends them with exit status 0.
func TestTheExamplesAsCopied(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	for _, minor := range examplectl.Versions {
		t.Run("kubernetes-"+minor, func(t *testing.T) { examplesAsCopied(t, c, bin, minor) })
	}
}

// examplesAsCopied is TestTheExamplesAsCopied with client-go and
// controller-runtime of Kubernetes minor.
func examplesAsCopied(t *testing.T, c *kubetest.Cluster, bin, minor string) {
	for _, ex := range []struct {
		example  examplectl.Example
		informer string
		listener func(string) bool
		start    func(t *testing.T) *examplectl.Process
	}{
		{examplectl.CopiedClientGoController, "deployments.apps", func(l string) bool { return l == "main.(*Controller)" },
			func(t *testing.T) *examplectl.Process {
				addr := freeAddr(t)
				return examplectl.StartAt(t, examplectl.CopiedClientGoController.At(minor), addr, "--kubeconfig", c.Kubeconfig, "--agent-addr", addr)
			}},
		{examplectl.CopiedControllerRuntimeManager, "configmaps", func(l string) bool { return strings.Contains(l, "controller-runtime") },
			func(t *testing.T) *examplectl.Process {
				addr := freeAddr(t)
				// On this machine: plain HTTP, as the example's README says.
				return examplectl.StartAt(t, examplectl.CopiedControllerRuntimeManager.At(minor), "http://"+addr+"/debug/informtop/",
					"--kubeconfig", c.Kubeconfig, "--metrics-bind-address", addr, "--metrics-secure=false", "--health-probe-bind-address", "0")
			}},
	} {
		t.Run(string(ex.example), func(t *testing.T) {
			ctl := ex.start(t)
			var last string
			err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
				code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--timeout", "30s")
				last = fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
				var doc attachJSON
				if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil {
					return false, nil
				}
				for _, inf := range doc.Informers {
					for _, l := range inf.Listeners {
						if inf.Name == ex.informer && inf.Synced && ex.listener(l.Name) && l.Synced {
							return true, nil
						}
					}
				}
				return false, nil
			})
			if err != nil {
				t.Fatalf("attach never showed the %s informer synced with the controller's handler: %v; last:\n%s\nits log:\n%s",
					ex.informer, err, last, strings.Join(ctl.Log(), "\n"))
			}
			if err := ctl.Stop(); err != nil {
				t.Fatalf("after SIGTERM: %v; want exit 0; its log:\n%s", err, strings.Join(ctl.Log(), "\n"))
			}
		})
	}
}

// freeAddr is a loopback address with a port free now, for a program
// that does not say which port it bound.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
