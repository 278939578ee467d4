// Command pprof-manager is a controller-runtime manager that knows nothing
// of informtop: no import of it, no agent; only controller-runtime's own
// Options.PprofBindAddress, which serves net/http/pprof on a port of its
// own. That is all `informtop attach --pprof` needs to name a stuck
// handler (docs/attach-pprof.md).
//
// It reconciles ConfigMaps in --namespace. Its create and update
// predicate holds the call that receives a ConfigMap labelled
// informtop.example/block=true in holdWhileLabelled until the file
// --release-file exists: a handler upstream of the workqueue that hangs,
// which leaves every workqueue_* series flat.
//
// Once the manager is built (its pprof port bound) it prints
// "pprof listening on ADDR".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const blockLabel = "informtop.example/block"

func main() {
	var (
		namespace   = flag.String("namespace", "default", "namespace to watch")
		pprofAddr   = flag.String("pprof-addr", "127.0.0.1:6065", "Options.PprofBindAddress: where net/http/pprof is served (a fixed port: the manager does not say which one it got for :0)")
		releaseFile = flag.String("release-file", filepath.Join(os.TempDir(), "pprof-manager.release"), "a ConfigMap labelled "+blockLabel+"=true holds its predicate until this file exists")
	)
	// --kubeconfig is controller-runtime's own flag (package config).
	flag.Parse()
	if err := run(*namespace, *pprofAddr, *releaseFile); err != nil {
		fmt.Fprintln(os.Stderr, "pprof-manager:", err)
		os.Exit(1)
	}
}

func run(namespace, pprofAddr, releaseFile string) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		PprofBindAddress:       pprofAddr,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
	})
	if err != nil {
		return err
	}
	hold := predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { holdWhileLabelled(e.Object, releaseFile); return true },
		UpdateFunc: func(e event.UpdateEvent) bool { holdWhileLabelled(e.ObjectNew, releaseFile); return true },
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("configmaps").
		For(&corev1.ConfigMap{}, builder.WithPredicates(hold)).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "pprof listening on %s\n", pprofAddr)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// holdWhileLabelled keeps the predicate's call here while obj is labelled
// informtop.example/block=true and releaseFile does not exist: the code a
// stuck handler is in, as informtop attach --pprof names it.
func holdWhileLabelled(obj client.Object, releaseFile string) {
	if obj.GetLabels()[blockLabel] != "true" {
		return
	}
	for {
		if _, err := os.Stat(releaseFile); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
