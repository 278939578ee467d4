//go:build !plain

// The agent's lines of this manager, the ones examples/controller-runtime-manager
// shows a user, each in a small function main.go calls where it goes.
// plain.go is the same manager without them: `go build -tags plain` links
// no informtop at all, for the cost benchmark (docs/benchmarks.md).

package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/examples/internal/harness"
)

// debugAgent is what the agent serves: every informer the cache builds
// through it.
type debugAgent struct{ served *agent.Set }

func newDebugAgent(config) (*debugAgent, error) { return &debugAgent{served: agent.NewSet()}, nil }

// newInformer is the cache's NewInformer: controller-runtime's cache
// builds every informer through the agent, which adds it to the set it
// serves.
func (a *debugAgent) newInformer() newInformerFunc { return agent.NewInformer(a.served) }

// checkAddr applies agent.Serve's rules to the metrics server's address,
// which serves the caches through the agent: one that is not loopback
// needs a token.
func (a *debugAgent) checkAddr(addr, token string) (string, error) {
	addr, err := serve.CheckAddr(addr, serve.Options{Token: token})
	if err != nil {
		return "", fmt.Errorf("--agent-addr %s (--agent-token sets the token)", strings.TrimPrefix(err.Error(), "agent: "))
	}
	return addr, nil
}

// handlers are the metrics server's ExtraHandlers: the agent at
// agentPath. The handler exists before any informer does: the set fills
// as the cache builds them. Its collector goes to controller-runtime's
// registry, so the manager's own /metrics has informtop's series.
func (a *debugAgent) handlers(cfg config) (map[string]http.Handler, error) {
	h, err := agent.NewHandler(a.served, agent.Options{Token: cfg.agentToken, Name: name, Registry: ctrlmetrics.Registry})
	if err != nil {
		return nil, err
	}
	return map[string]http.Handler{agentPath: h}, nil
}

// announce prints the agent's URL on stderr once the agent answers there.
func (a *debugAgent) announce(ctx context.Context, addr string, secure bool) {
	harness.AnnounceWhenServing(ctx, addr, agentPath, api.PathGeneration, secure, func(resp *http.Response) bool {
		// Any answer of the agent carries its version, a 401 or a 400
		// for the missing informer parameter included.
		return resp.Header.Get(api.VersionHeader) != ""
	})
}
