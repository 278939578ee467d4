//go:build !plain

package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"

	"github.com/informtop/informtop/agent"
)

// readmeFactory is the README's snippet for a client-go informer factory,
// line for line (a test in the root module checks the README against
// it), so that the snippet compiles with this example.
func readmeFactory(ctx context.Context, factory informers.SharedInformerFactory) {
	set := agent.NewSet()
	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
	go agent.Serve(ctx, "127.0.0.1:6060", agent.Options{Informers: set})
}
