//go:build !plain

// The agent's lines of this controller, the ones examples/client-go-controller
// shows a user, each in a small function main.go calls where it goes.
// plain.go is the same controller without them: `go build -tags plain`
// links no informtop at all, for the cost benchmark (docs/benchmarks.md).

package main

import (
	"context"
	"net"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/examples/internal/harness"
)

// debugAgent is what the agent serves: the informers built through it and
// the workqueue's metrics.
type debugAgent struct {
	served *agent.Set
	queues *agent.WorkqueueMetrics
}

func newDebugAgent(config) (*debugAgent, error) {
	return &debugAgent{served: agent.NewSet(), queues: agent.NewWorkqueueMetrics()}, nil
}

// deployments has the factory build its Deployment informer through the
// agent: client-go's own, observed. Before anything asks the factory for
// Deployments: the factory keeps the first informer built per type.
func (a *debugAgent) deployments(factory informers.SharedInformerFactory, namespace string) {
	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(a.served, &appsv1.Deployment{}, agent.InNamespace(namespace), agent.WithName("deployments")))
}

// workqueueMetrics is the workqueue's MetricsProvider, through which the
// agent sees its depth, adds, retries, how long keys wait and how long
// workers take.
func (a *debugAgent) workqueueMetrics() workqueue.MetricsProvider { return a.queues }

// serve serves the informer and the workqueue to informtop attach
// (nothing with an empty --agent-addr) and returns what waits for the
// agent to stop once ctx is done. It returns once the listener is bound,
// having announced it (port 0 picks a free one); connections made from
// then on wait for the agent.
func (a *debugAgent) serve(ctx context.Context, cfg config) (wait func(), err error) {
	if cfg.agentAddr == "" {
		return func() {}, nil
	}
	listening := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- agent.Serve(ctx, cfg.agentAddr, a.served, agent.ServeOptions{
			Options:   agent.Options{Token: cfg.agentToken, Name: name, Workqueues: a.queues},
			Listening: func(a net.Addr) { listening <- a },
		})
	}()
	wait = func() {
		if err := <-done; err != nil {
			klog.ErrorS(err, "debug agent")
		}
	}
	select {
	case addr := <-listening:
		harness.Announce(addr.String())
		return wait, nil
	case err := <-done:
		return func() {}, err // a sentence from the agent; nil only if ctx was done first
	}
}
