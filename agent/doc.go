// Package agent lets `informtop attach` look inside your controller's
// informers while it runs: which handler is in a callback and in which of
// your functions, how far each handler is behind, what the watch brings,
// what the cache holds, and your workqueues. It keeps client-go's own
// informers, unchanged in behaviour: the agent watches them from outside.
//
// It is its own small module, on the Kubernetes versions production runs:
// client-go v0.35 to v0.37 and controller-runtime v0.23 to v0.25. Adding
// it lifts no version in your go.mod:
//
//	go get github.com/informtop/informtop/agent@latest
//
// # controller-runtime
//
// One line builds the cache's informers through the agent, and the
// manager's metrics server serves it behind the authentication and
// authorization it already applies to /metrics:
//
//	set := agent.NewSet()
//	h, err := agent.NewHandler(set, agent.Options{Registry: metrics.Registry})
//	if err != nil {
//		return err
//	}
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		Cache: cache.Options{NewInformer: agent.NewInformer(set)},
//		Metrics: server.Options{
//			BindAddress:    ":8443",
//			SecureServing:  true,
//			FilterProvider: filters.WithAuthenticationAndAuthorization,
//			ExtraHandlers:  map[string]http.Handler{"/debug/informtop/": h},
//		},
//	})
//
// then `informtop attach -n NS deploy/NAME` reaches it through the API
// server with your kubeconfig's credentials.
//
// # client-go
//
// One line per informer type, before anything asks the factory for it,
// and the agent on loopback:
//
//	set := agent.NewSet()
//	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
//	go func() {
//		if err := agent.Serve(ctx, "127.0.0.1:6060", set, agent.ServeOptions{}); err != nil {
//			logger.Error(err, "informtop agent")
//		}
//	}()
//
// A generated clientset's informer (a CRD's) takes InformerForClient;
// anything else built from a ListerWatcher (dynamic, metadata) takes
// NewInformer, with WithResource where the object does not say what it
// is. Give the workqueue NewWorkqueueMetrics as its MetricsProvider and to
// Options.Workqueues to see it as the stage after the handlers.
//
// # What it sees
//
// Each informer's lists, watches, errors and freshness; each handler's
// call in progress (the callback, the key, since when, and for a call
// stuck longer than 2 s the function and line of your code it is in),
// calls by kind, latency, HasSynced, and its backlog as a lower bound;
// the cache's objects (Secrets' data replaced by its size). What
// client-go's informer keeps to itself it does not show: the queue's rows
// and depth, handlers' buffers, memory estimates, and a cut of the cache
// as of one resourceVersion for attach --verify.
//
// # Security
//
// Read-only, GET only. Serve listens on loopback unless given a Token
// (Options.TokenFile keeps it in a mounted Secret); every request is then
// checked in constant time before anything else. A MetricsToken reads
// /metrics only. Requests are rate-bounded (Options.RequestsPerSecond),
// so neither scrapers nor unauthenticated clients can make your handlers
// pay. docs/security.md has the details.
//
// # What it costs
//
// A probe around each handler call (two clock reads and a lock, no
// allocation), one listener per informer that counts, and a look at the
// handlers once a second; nothing else runs while nobody asks.
// docs/benchmarks.md has the figures per client-go version.
package agent
