package main

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/api"
)

// When the first contact shows waiting cannot help (a token wanted,
// nothing listening, something that is not an agent), attach --once says
// so and exits 2 at once: --timeout is an hour here, so returning at all
// proves it did not wait for it.
func TestAttachSaysAtOnceWhyItCannotRead(t *testing.T) {
	tokenAgent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(tokenAgent.Close)
	notAgent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>hello</html>"))
	}))
	t.Cleanup(notAgent.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	for _, c := range []struct {
		name, addr string
		want       []string
	}{
		{"token wanted", tokenAgent.URL, []string{"wants a token", "--token-file"}},
		{"nothing listens", closed, []string{"nothing listens at " + closed, "connection refused"}},
		{"not an agent", notAgent.URL, []string{"without the " + api.VersionHeader + " header", "is it an informtop agent"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envAttachToken, "")
			code, stdout, stderr := runCLI(t, "attach", c.addr, "--once", "--timeout", "1h")
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if stdout != "" {
				t.Errorf("a report was printed for a source that was never read: %q", stdout)
			}
		})
	}
}

// --agent-ca-file is the CA an agent's TLS certificate is checked with:
// without it a self-signed agent is refused as untrusted, with it the
// TLS layer passes and what the agent answers is what is heard.
func TestAttachAgentCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(api.VersionHeader, api.Version)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAttachToken, "")
	code, _, stderr := runCLI(t, "attach", srv.URL, "--once", "--timeout", "1h")
	if code != 2 || !strings.Contains(stderr, "not trusted") || !strings.Contains(stderr, "--agent-ca-file") {
		t.Errorf("a self-signed agent without --agent-ca-file: exit %d, %q; want 2, untrusted, naming --agent-ca-file", code, stderr)
	}
	code, _, stderr = runCLI(t, "attach", srv.URL, "--agent-ca-file", ca, "--once", "--timeout", "1h")
	if code != 2 || !strings.Contains(stderr, "(404)") {
		t.Errorf("with --agent-ca-file: exit %d, %q; want the agent's own 404 heard", code, stderr)
	}
	code, _, stderr = runCLI(t, "attach", srv.URL, "--agent-ca-file", "/dev/zero", "--once")
	if code != 2 || !strings.Contains(stderr, "--agent-ca-file /dev/zero") {
		t.Errorf("--agent-ca-file /dev/zero: exit %d, %q; want 2 naming the flag", code, stderr)
	}
}
