package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
	"github.com/informtop/informtop/internal/promtest"
)

// authRecorder is a hostile scrape target: it passes every request on to
// a real agent, so the fleet ranks it like that agent, and remembers the
// Authorization header of each.
type authRecorder struct {
	mu    sync.Mutex
	seen  int
	auths []string
}

func (r *authRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen++
		if a := req.Header.Get("Authorization"); a != "" {
			r.auths = append(r.auths, a)
		}
		r.mu.Unlock()
		next.ServeHTTP(w, req)
	})
}

func (r *authRecorder) counts() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen, append([]string(nil), r.auths...)
}

// The fleet's Enter: a process whose target labels name its namespace and
// pod (as Kubernetes service discovery labels it) is attached to through
// the API server, its instance an in-cluster address nobody outside can
// dial; a target that names only an address of its own is dialled
// directly but never receives --agent-token-file's token, which goes only
// to the addresses --agent-direct allows.
func TestFleetEnterAttachesThroughTheAPIServer(t *testing.T) {
	c := kubetest.Shared(t)
	node := kwoktest.Start(t, c)
	const ns = "fleet-tunnel"
	cs := clusterNamespace(t, c, ns)
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), deployment(ns, "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctl := startController(t, c.Kubeconfig, ns, filepath.Join(dir, "never"), "127.0.0.1:0")
	node.Pod(t, controllerPod(ns, "ctrl-a", "ctrl", "informtop", 6060), map[int32]string{6060: ctl.Addr()})

	agentURL, err := url.Parse("http://" + ctl.Addr())
	if err != nil {
		t.Fatal(err)
	}
	rec := &authRecorder{}
	hostile := httptest.NewServer(rec.wrap(httputil.NewSingleHostReverseProxy(agentURL)))
	t.Cleanup(hostile.Close)
	hostileAddr := strings.TrimPrefix(hostile.URL, "http://")

	prom := promtest.Start(t, promtest.Config{Targets: []promtest.Target{
		// The pod as Kubernetes service discovery labels it: instance is
		// its pod IP, unreachable from here.
		{Job: "controllers", Addr: ctl.Addr(), Labels: map[string]string{"namespace": ns, "pod": "ctrl-a", "instance": "10.244.0.7:6060"}},
		{Job: "controllers", Addr: hostileAddr},
	}})
	token := filepath.Join(dir, "agent-token")
	if err := os.WriteFile(token, []byte("the-agents-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := buildInformtop(t, dir)

	// The token needs somewhere it may go.
	if code, _, stderr, _ := informtop(t, bin, "fleet", "--prometheus", prom.URL(), "--agent-token-file", token, "--once"); code != 2 || !strings.Contains(stderr, "--agent-direct") {
		t.Errorf("fleet --agent-token-file without --agent-direct: exit %d, %q; want 2 naming --agent-direct", code, stderr)
	}

	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "fleet-tunnel"}
	home := t.TempDir() // an empty config: no user's key map
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s fleet --prometheus %s --selector 'job=\"controllers\"' --kubeconfig %s --agent-token-file %s --agent-direct 10.0.0.0/8",
		home, home, bin, prom.URL(), c.Kubeconfig, token)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "40", cmd)
	t.Cleanup(func() { tm.run("kill-server") })
	screen := tm.waitFor("both processes stalled", func(s string) bool {
		return strings.Count(s, "in misbehave (main.go:") >= 2 && strings.Contains(s, ns+"/ctrl-a") && strings.Contains(s, hostileAddr)
	})
	// Both rank alike (one agent's series twice), but scrapes a moment
	// apart can order them either way: find the hostile one's row.
	hostileFirst := strings.Index(screen, hostileAddr) < strings.Index(screen, "10.244.0.7:6060")
	toHostile, toPod := []string{"Enter"}, []string{"j", "Enter"}
	if !hostileFirst {
		toHostile, toPod = []string{"j", "Enter"}, []string{"k", "Enter"}
	}
	tm.keys(toHostile...)
	tm.waitFor("the hostile target's agent, dialled directly", func(s string) bool {
		return strings.Contains(s, "at "+hostileAddr+" (read-only)") && strings.Contains(s, "deployments")
	})
	if seen, auths := rec.counts(); seen == 0 || len(auths) != 0 {
		t.Errorf("the hostile target saw %d requests with Authorization %q; want requests, none with a token", seen, auths)
	}
	tm.keys("Escape")
	tm.waitFor("the fleet again", func(s string) bool { return strings.Contains(s, "worst first") })
	tm.keys(toPod...)
	tm.waitFor("the pod's agent through the API server", func(s string) bool {
		return strings.Contains(s, "at "+ns+"/ctrl-a:6060 via API server (read-only)") && strings.Contains(s, "deployments")
	})
}
