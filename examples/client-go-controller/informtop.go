//go:build !plain

// The informtop lines of this controller, what a user adds to their own
// (main.go calls each where it goes). plain.go is the same controller
// without them: `go build -tags plain` links no informtop at all, for the
// cost benchmark (docs/benchmarks.md).

package main

import (
	"context"
	"fmt"
	"net"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/agent"
)

// debugAgent is what the agent serves: the informers built through it and
// the workqueue's metrics. The user's line:
//
//	served, queues := agent.NewSet(), agent.NewWorkqueueMetrics()
type debugAgent struct {
	served *agent.Set
	queues *agent.WorkqueueMetrics
}

func newDebugAgent(config) (*debugAgent, error) {
	return &debugAgent{served: agent.NewSet(), queues: agent.NewWorkqueueMetrics()}, nil
}

// deployments is the one informtop line per informer type: the factory's
// Deployment informer is client-go's own, observed by the agent (or, with
// --informer engine, informtop's engine, for the whole pipeline in view).
// Before anything asks the factory for Deployments: the factory keeps the
// first informer built per type. The user's line:
//
//	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(served, &appsv1.Deployment{}))
func (a *debugAgent) deployments(factory informers.SharedInformerFactory, cfg config) {
	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(a.served, &appsv1.Deployment{}, informerOptions(cfg)...))
}

// informerOptions are --informer's and --namespace's.
func informerOptions(cfg config) []agent.InformerOption {
	opts := []agent.InformerOption{agent.InNamespace(cfg.namespace), agent.WithName("deployments")}
	if cfg.engine {
		opts = append(opts, agent.WithEngine())
	}
	return opts
}

// workqueueMetrics is the workqueue's MetricsProvider, through which the
// agent sees its depth, adds, retries, how long keys wait and how long
// workers take. The user's line, in the queue's config:
//
//	MetricsProvider: queues,
func (a *debugAgent) workqueueMetrics() workqueue.MetricsProvider { return a.queues }

// serve serves the informer and the workqueue to informtop attach
// (nothing with an empty --agent-addr) and returns what waits for the
// agent to stop once ctx is done. It returns once the listener is bound,
// having printed `agent listening on ADDR` (port 0 picks a free one);
// connections made from then on wait for the agent. The user's line:
//
//	go agent.Serve(ctx, addr, agent.Options{Informers: served, Workqueues: queues})
func (a *debugAgent) serve(ctx context.Context, cfg config) (wait func(), err error) {
	if cfg.agentAddr == "" {
		return func() {}, nil
	}
	listening := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- agent.Serve(ctx, cfg.agentAddr, agent.Options{
			Token:      cfg.agentToken,
			Name:       name,
			Informers:  a.served,
			Workqueues: a.queues,
			Listening:  func(a net.Addr) { listening <- a },
		})
	}()
	wait = func() {
		if err := <-done; err != nil {
			klog.ErrorS(err, "debug agent")
		}
	}
	select {
	case addr := <-listening:
		fmt.Fprintf(os.Stderr, "agent listening on %s\n", addr)
		return wait, nil
	case err := <-done:
		return func() {}, err // a sentence from the agent; nil only if ctx was done first
	}
}
