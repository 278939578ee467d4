//go:build !plain

// The informtop lines of this manager, what a user adds to their own
// (main.go calls each where it goes). plain.go is the same manager
// without them: `go build -tags plain` links no informtop at all, for the
// cost benchmark (docs/benchmarks.md).

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/api"
)

// debugAgent is what the agent serves: every informer the cache builds
// through it. The user's line:
//
//	served := agent.NewSet()
type debugAgent struct{ served *agent.Set }

func newDebugAgent(config) (*debugAgent, error) { return &debugAgent{served: agent.NewSet()}, nil }

// newInformer is the one informtop line: controller-runtime's cache
// builds every informer through the agent, which adds it to the set it
// serves (with --informer engine, informtop's engine instead of
// client-go's informer). The user's line, in the cache's options:
//
//	NewInformer: agent.NewInformer(served),
func (a *debugAgent) newInformer(cfg config) newInformerFunc {
	var opts []agent.InformerOption
	if cfg.engine {
		opts = append(opts, agent.WithEngine())
	}
	return agent.NewInformer(a.served, opts...)
}

// checkAddr applies agent.Serve's rules to the metrics server's address,
// which serves the caches through the agent (agent.CheckAddr): one that
// is not loopback needs a token.
func (a *debugAgent) checkAddr(addr, token string) (string, error) {
	addr, err := agent.CheckAddr(addr, agent.Options{Token: token})
	if err != nil {
		return "", fmt.Errorf("--agent-addr %s (--agent-token sets the token)", strings.TrimPrefix(err.Error(), "agent: "))
	}
	return addr, nil
}

// handlers are the metrics server's ExtraHandlers: the agent at
// agentPath. The handler exists before any informer does: the set fills
// as the cache builds them. Its collector goes to controller-runtime's
// registry, so the manager's own /metrics has informtop's series. The
// user's line, in the metrics server's options:
//
//	ExtraHandlers: map[string]http.Handler{"/debug/informtop/": agent.NewHandler(agent.Options{Informers: served})},
func (a *debugAgent) handlers(cfg config) (map[string]http.Handler, error) {
	h, err := agent.NewHandler(agent.Options{
		Token:     cfg.agentToken,
		Name:      name,
		Registry:  ctrlmetrics.Registry,
		Informers: a.served,
	})
	if err != nil {
		return nil, err
	}
	return map[string]http.Handler{agentPath: h}, nil
}

// announce prints the agent's URL on stderr once the agent answers there,
// for people and tests to attach to. It asks for the agent's protocol
// header, so a port that another process took between listenAddr and
// the manager's bind is never announced (the manager then fails). Behind
// the metrics server's filter (secure) the agent cannot be asked without
// a token: the filter's 401 over TLS is the sign.
func (a *debugAgent) announce(ctx context.Context, addr string, secure bool) {
	scheme := "http"
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if secure {
		scheme = "https"
		// The metrics server's certificate is self-signed.
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // a local readiness probe
	}
	defer tr.CloseIdleConnections()
	probe := scheme + "://" + loopback(addr) + agentPath + strings.TrimPrefix(api.PathGeneration, "/")
	client := &http.Client{Timeout: time.Second, Transport: tr}
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe, nil)
		if err != nil {
			return
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			// Any answer of the agent carries its version, a 401 or a 400
			// for the missing informer parameter included.
			if resp.Header.Get(api.VersionHeader) != "" || secure && resp.StatusCode == http.StatusUnauthorized {
				fmt.Fprintf(os.Stderr, "agent listening on %s://%s%s\n", scheme, addr, agentPath)
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// loopback is addr with a wildcard host replaced by 127.0.0.1, where a
// wildcard listener is reachable.
func loopback(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
