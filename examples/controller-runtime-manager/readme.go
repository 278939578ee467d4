//go:build !plain

package main

import (
	"net/http"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/informtop/informtop/agent"
)

// readmeManager is the README's snippet for a controller-runtime manager,
// line for line (a test in the root module checks the README against
// it), so that the snippet compiles with this example.
func readmeManager(cfg *rest.Config) (manager.Manager, error) {
	set := agent.NewSet()
	h, err := agent.NewHandler(agent.Options{Informers: set, Registry: ctrlmetrics.Registry})
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache: cache.Options{NewInformer: agent.NewInformer(set)},
		Metrics: metricsserver.Options{BindAddress: ":8443", SecureServing: true, FilterProvider: filters.WithAuthenticationAndAuthorization,
			ExtraHandlers: map[string]http.Handler{"/debug/informtop/": h}},
	})
	return mgr, err
}
