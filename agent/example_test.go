package agent_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
)

// A controller builds its informers with the engine, sharing one event
// ring and client-go's informer metrics, and serves the agent on
// loopback; `kubectl port-forward` then `informtop attach` reach it.
func Example() {
	var lw cache.ListerWatcher // e.g. cache.NewListWatchFromClient(...)
	reg := prometheus.NewRegistry()
	provider, err := agent.NewMetricsProvider(reg)
	if err != nil {
		log.Fatal(err)
	}
	name, err := cache.NewInformerName("my-controller")
	if err != nil {
		log.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	pods := engine.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, engine.Options{
		Name: "pods", Resource: "pods", ResyncPeriod: 10 * time.Minute,
		Identifier: name.WithResource(gvr), MetricsProvider: provider,
		Instrumentation: engine.Instrumentation{Events: instr.NewRing(0)},
	})

	ctx := context.Background()
	go func() {
		opts := agent.Options{Registry: reg, Resources: map[string]schema.GroupVersionResource{"pods": gvr}}
		if err := agent.Serve(ctx, ":9091", opts, pods); err != nil {
			log.Print(err)
		}
	}()

	// Or mount it on a server the controller already runs, behind the
	// token in a mounted Secret (informtop attach --token-file reads a
	// copy of it).
	h, err := agent.NewHandler(agent.Options{TokenFile: "/var/run/secrets/informtop/token"}, pods)
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/informtop/", h)
}

// Informers built after the handler, as controller-runtime's cache builds
// them (on first use, after its metrics server's ExtraHandlers are
// fixed), are served from the moment they are added to the handler's Set.
func ExampleSet() {
	informers := agent.NewSet()
	h, err := agent.NewHandler(agent.Options{Informers: informers})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/debug/informtop/", h) // or metricsserver.Options.ExtraHandlers

	// Later, wherever informers are built (cache.Options.NewInformer):
	var lw cache.ListerWatcher
	cms := engine.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, engine.Options{Name: "configmaps"})
	if err := informers.Add(cms); err != nil {
		log.Print(err) // a nil informer, or a name already served
	}
}
