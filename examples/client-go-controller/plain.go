//go:build plain

// The same controller without informtop (go build -tags plain), for the
// cost benchmark (docs/benchmarks.md): each informtop line of
// informtop.go is left out, so the factory builds client-go's informer
// itself and the workqueue has client-go's default metrics. Flags that
// only mean something to the agent are accepted and ignored.

package main

import (
	"context"
	"errors"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/util/workqueue"
)

type debugAgent struct{}

func newDebugAgent(cfg config) (*debugAgent, error) {
	if cfg.engine {
		return nil, errors.New("--informer engine: this controller was built without informtop (-tags plain)")
	}
	return &debugAgent{}, nil
}

func (*debugAgent) deployments(informers.SharedInformerFactory, config) {}

func (*debugAgent) workqueueMetrics() workqueue.MetricsProvider { return nil }

func (*debugAgent) serve(context.Context, config) (wait func(), err error) { return func() {}, nil }
