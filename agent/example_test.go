package agent_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/engine"
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

// controller-runtime: the manager's cache builds client-go's own
// informers through the agent, which serves each from then on (the
// handler goes in metricsserver.Options.ExtraHandlers). The function has
// exactly the type of cache.Options.NewInformer:
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		Cache:   cache.Options{NewInformer: agent.NewInformer(set)},
//		Metrics: metricsserver.Options{BindAddress: ":8080", ExtraHandlers: map[string]http.Handler{"/debug/informtop/": h}},
//	})
func ExampleNewInformer() {
	set := agent.NewSet()
	h, err := agent.NewHandler(agent.Options{Informers: set})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/debug/informtop/", h)

	var newInformer func(cache.ListerWatcher, runtime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer = agent.NewInformer(set)
	_ = newInformer
}

// A client-go informer factory: one line per informer type, before
// anything asks the factory for it; the typed informer and lister then
// use client-go's own informer, observed by the agent.
func ExampleInformerFor() {
	var client kubernetes.Interface // kubernetes.NewForConfig(cfg)
	set := agent.NewSet()
	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
	lister := factory.Apps().V1().Deployments().Lister()
	_ = lister

	ctx := context.Background()
	go func() {
		if err := agent.Serve(ctx, "127.0.0.1:6060", agent.Options{Name: "my-controller", Informers: set}); err != nil {
			log.Print(err)
		}
	}()
}
