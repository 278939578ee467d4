package examplectl_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// An example that exits before its agent listens fails the start at once,
// with how it ended and its log; Stop then says how it ended too. Here
// the agent refuses an address other machines reach without a token.
func TestStartReportsAnExit(t *testing.T) {
	// A cluster nothing connects to: the agent refuses before the
	// informer starts.
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := examplectl.StartErr(t, examplectl.ClientGoController, "--kubeconfig", kubeconfig, "--agent-addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "client-go-controller --kubeconfig") ||
		!strings.Contains(err.Error(), "--agent-addr 0.0.0.0:0 exited (exit status 1) before its agent listened") ||
		!strings.Contains(err.Error(), "refusing to serve on 0.0.0.0:0 without a token") {
		t.Fatalf("start = %v", err)
	}
	if p.Addr() != "" {
		t.Errorf("Addr = %q after an exit", p.Addr())
	}
	if err := p.Stop(); err == nil || err.Error() != "exit status 1" {
		t.Errorf("Stop = %v, want exit status 1", err)
	}
}

// The example runs as its users run it: its agent serves /metrics at the
// address it printed, SIGTERM ends it with exit status 0 and leaves no
// process behind, and its binary is built once.
func TestStartServesTheAgent(t *testing.T) {
	c := kubetest.Shared(t)
	p := examplectl.Start(t, examplectl.ClientGoController,
		"--kubeconfig", c.Kubeconfig, "--namespace", "examplectl", "--agent-addr", "127.0.0.1:0")
	if !slices.Contains(p.Log(), "agent listening on "+p.Addr()) {
		t.Fatalf("Addr %q is not the one the log gives:\n%s", p.Addr(), strings.Join(p.Log(), "\n"))
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("http://" + p.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the agent's /metrics answered %s", resp.Status)
	}

	if err := p.Stop(); err != nil {
		t.Fatalf("after SIGTERM: %v, want exit status 0", err)
	}
	if err := syscall.Kill(p.PID(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d is still there after Stop: %v", p.PID(), err)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop again = %v", err)
	}

	bin := examplectl.Binary(t, examplectl.ClientGoController)
	if again := examplectl.Binary(t, examplectl.ClientGoController); again != bin {
		t.Fatalf("built twice: %s, then %s", bin, again)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}
