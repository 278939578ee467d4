// Command controller-runtime-manager is the test and benchmark twin of
// examples/controller-runtime-manager: a controller-runtime manager with
// one reconciler, for ConfigMaps, whose cache builds client-go's own
// informers through the agent, mounted in the manager's metrics server
// (plain, or with --metrics-secure TLS behind the authentication and
// authorization filter, as kubebuilder scaffolds it), plus what only the
// tests need: a create predicate that hangs on demand (--block-labelled,
// until --release-file exists), the agent's URL announced on stderr, and
// the process measured from outside (package harness). The agent's lines
// are in informtop.go; `go build -tags plain` leaves them out (plain.go)
// and links no informtop package, which is what the cost benchmark
// compares it with (cmd/informtop/cost_e2e_test.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informtop/informtop/examples/internal/harness"
)

// name is what the agent calls this process in informtop attach.
const name = "controller-runtime-manager"

// agentPath is where the agent is mounted in the metrics server; attach
// to http://ADDR/debug/informtop/.
const agentPath = "/debug/informtop/"

func main() {
	// --kubeconfig is registered on flag.CommandLine by controller-runtime
	// (sigs.k8s.io/controller-runtime/pkg/client/config) and read by
	// ctrl.GetConfig: $KUBECONFIG, in-cluster, then ~/.kube/config.
	var (
		namespace  = flag.String("namespace", "", "namespace to watch; default: every namespace")
		blockLabel = flag.Bool("block-labelled", false, "the create predicate waits, for a ConfigMap labelled "+blockLabel+"=true, until --release-file exists")
		release    = flag.String("release-file", filepath.Join(os.TempDir(), name+".release"), "with --block-labelled: labelled ConfigMaps proceed while this file exists")
		agentAddr  = flag.String("agent-addr", "127.0.0.1:0", "address of the metrics server, which serves /metrics and informtop's debug agent under "+agentPath+" (port 0: a free port); empty: neither")
		agentToken = flag.String("agent-token", "", "token informtop attach must present to the agent")
		secure     = flag.Bool("metrics-secure", false, "serve the metrics server (and the agent in it) over TLS behind controller-runtime's authentication and authorization filter, as kubebuilder scaffolds it: callers need a Kubernetes bearer token allowed get on the path; the agent then needs no token of its own")
		measure    = harness.Flags(flag.CommandLine)
	)
	klog.InitFlags(nil)
	flag.Parse()
	ctrl.SetLogger(klog.NewKlogr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopMeasuring, err := measure.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	defer stopMeasuring()
	cfg := config{namespace: *namespace, agentAddr: *agentAddr, agentToken: *agentToken, secure: *secure, blockLabelled: *blockLabel, releaseFile: *release}
	if err := run(ctx, cfg); err != nil {
		klog.Flush()
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	klog.Flush()
}

type config struct {
	namespace, agentAddr, agentToken string
	secure                           bool // --metrics-secure
	blockLabelled                    bool
	releaseFile                      string
}

// newInformerFunc is the type of cache.Options.NewInformer.
type newInformerFunc = func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

func run(ctx context.Context, cfg config) error {
	namespace, agentAddr, agentToken := cfg.namespace, cfg.agentAddr, cfg.agentToken
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}

	// informtop: what the debug agent serves (informtop.go).
	debug, err := newDebugAgent(cfg)
	if err != nil {
		return err
	}
	// informtop, the one line: controller-runtime's cache builds every
	// informer through the agent, which adds it to the set it serves
	// (informtop.go).
	cacheOpts := cache.Options{NewInformer: debug.newInformer()}
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	metricsOpts := metricsserver.Options{BindAddress: "0"} // no agent: no metrics server either
	if agentAddr != "" {
		if agentAddr, err = listenAddr(debug, agentAddr, agentToken, cfg.secure); err != nil {
			return err
		}
		metricsOpts.BindAddress = agentAddr
		if cfg.secure {
			// kubebuilder's scaffold: TLS (a self-signed certificate), and
			// every request, the agent's included, authenticated with a
			// TokenReview and authorized with a SubjectAccessReview.
			metricsOpts.SecureServing = true
			metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
		}
		// informtop: the agent is one of the metrics server's handlers
		// (informtop.go).
		if metricsOpts.ExtraHandlers, err = debug.handlers(cfg); err != nil {
			return err
		}
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Cache:                  cacheOpts,
		Metrics:                metricsOpts,
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return err
	}

	r := &reconciler{client: mgr.GetClient()}
	var preds []predicate.Predicate
	if cfg.blockLabelled {
		preds = append(preds, predicate.Funcs{CreateFunc: func(e event.CreateEvent) bool {
			blockIfLabelled(ctx, e.Object, cfg.releaseFile)
			return true
		}})
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("configmaps").
		For(&corev1.ConfigMap{}, builder.WithPredicates(preds...)).
		Complete(r); err != nil {
		return err
	}

	if agentAddr != "" {
		go debug.announce(ctx, agentAddr, cfg.secure) // informtop.go
	}
	klog.InfoS("starting manager", "namespace", namespace)
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	klog.InfoS("shut down", "reconciled", r.reconciled.Load())
	return nil
}

// listenAddr is the metrics server's address: the agent's rules
// applied (informtop.go; behind the filter every request is
// authenticated already), and port 0 resolved here to a free port,
// since controller-runtime does not tell which port it bound.
func listenAddr(debug *debugAgent, addr, token string, secure bool) (string, error) {
	if !secure {
		var err error
		if addr, err = debug.checkAddr(addr, token); err != nil {
			return "", err
		}
	}
	return harness.FreePort(addr)
}

// blockLabel marks the ConfigMaps --block-labelled holds up.
const blockLabel = "informtop.example/block"

// blockIfLabelled waits, for an object labelled blockLabel=true, until
// the release file exists or the manager stops: a handler stuck in the
// user's code, as informtop attach names it.
func blockIfLabelled(ctx context.Context, obj client.Object, releaseFile string) {
	if obj.GetLabels()[blockLabel] != "true" {
		return
	}
	for ctx.Err() == nil {
		if _, err := os.Stat(releaseFile); err == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// reconciler logs every ConfigMap it reconciles and counts them.
type reconciler struct {
	client     client.Client
	reconciled atomic.Int64
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			klog.InfoS("reconciled "+req.String()+" (deleted)", "total", r.reconciled.Add(1))
			return reconcile.Result{}, nil
		}
		if errors.Is(err, context.Canceled) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	klog.InfoS("reconciled "+req.String(), "keys", len(cm.Data)+len(cm.BinaryData), "total", r.reconciled.Add(1))
	return reconcile.Result{}, nil
}
