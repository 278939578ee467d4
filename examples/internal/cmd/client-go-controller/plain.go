//go:build plain

// The same controller without informtop (go build -tags plain), for the
// cost benchmark (docs/benchmarks.md): each agent line of informtop.go is
// left out, so the factory builds client-go's informer itself and the
// workqueue has client-go's default metrics. Flags that only mean
// something to the agent are accepted and ignored.

package main

import (
	"context"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/util/workqueue"
)

type debugAgent struct{}

func newDebugAgent(config) (*debugAgent, error) { return &debugAgent{}, nil }

func (*debugAgent) deployments(informers.SharedInformerFactory, string) {}

func (*debugAgent) workqueueMetrics() workqueue.MetricsProvider { return nil }

func (*debugAgent) serve(context.Context, config) (wait func(), err error) { return func() {}, nil }
