//go:build plain

// The same manager without informtop (go build -tags plain), for the cost
// benchmark (docs/benchmarks.md): each informtop line of informtop.go is
// left out, so the cache builds client-go's informers itself and the
// metrics server at --agent-addr serves only /metrics. Flags that only
// mean something to the agent are accepted and ignored.

package main

import (
	"context"
	"net/http"
)

type debugAgent struct{}

func newDebugAgent(config) (*debugAgent, error) { return &debugAgent{}, nil }

// newInformer is nil: the cache's own, client-go's informer.
func (*debugAgent) newInformer() newInformerFunc {
	return nil
}

func (*debugAgent) checkAddr(addr, _ string) (string, error) { return addr, nil }

func (*debugAgent) handlers(config) (map[string]http.Handler, error) { return nil, nil }

func (*debugAgent) announce(context.Context, string, bool) {}
