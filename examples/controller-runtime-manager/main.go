// Command controller-runtime-manager is a controller-runtime manager with
// one reconciler, for ConfigMaps, whose cache builds its informers with
// informtop's engine, and informtop's debug agent serving them so
// `informtop attach` can show their queue, cache and handlers live.
//
// The only informtop-specific lines are the cache.Options.NewInformer hook,
// which returns engine.NewSharedIndexInformerWithOptions and remembers the
// informer, and the runnable that serves the remembered informers with
// agent.Serve once the manager's cache has synced.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/engine"
)

// name is what the agent calls this process in informtop attach.
const name = "controller-runtime-manager"

func main() {
	// --kubeconfig is registered on flag.CommandLine by controller-runtime
	// (sigs.k8s.io/controller-runtime/pkg/client/config) and read by
	// ctrl.GetConfig: $KUBECONFIG, in-cluster, then ~/.kube/config.
	var (
		namespace  = flag.String("namespace", "", "namespace to watch; default: every namespace")
		agentAddr  = flag.String("agent-addr", "127.0.0.1:0", "address of informtop's debug agent (port 0: a free port); empty: no agent")
		agentToken = flag.String("agent-token", "", "token informtop attach must present to the agent")
	)
	klog.InitFlags(nil)
	flag.Parse()
	ctrl.SetLogger(klog.NewKlogr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *namespace, *agentAddr, *agentToken); err != nil {
		klog.Flush()
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	klog.Flush()
}

// informers remembers every informer the cache built with the engine, in
// the order it built them.
type informers struct {
	mu   sync.Mutex
	list []*engine.Informer
}

func (s *informers) add(i *engine.Informer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append(s.list, i)
}

func (s *informers) all() []*engine.Informer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*engine.Informer(nil), s.list...)
}

func run(ctx context.Context, namespace, agentAddr, agentToken string) error {
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}

	var (
		built informers
		mgr   manager.Manager
	)
	cacheOpts := cache.Options{
		// controller-runtime creates an informer per type the first time
		// something asks its cache for that type; this hook makes each one
		// an engine informer. It runs only after NewManager has returned,
		// so mgr is set.
		NewInformer: func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			name, resource := informerName(mgr, obj)
			inf := engine.NewSharedIndexInformerWithOptions(lw, obj, engine.Options{
				Name:         name,
				Resource:     resource,
				ResyncPeriod: resync,
				Indexers:     indexers,
			})
			built.add(inf)
			return inf
		},
	}
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	mgr, err = ctrl.NewManager(restConfig, ctrl.Options{
		Cache: cacheOpts,
		// No metrics server and no health probes: the agent serves the
		// informers (and informtop's metrics) on an address of its own.
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return err
	}

	r := &reconciler{client: mgr.GetClient()}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("configmaps").
		For(&corev1.ConfigMap{}).
		Complete(r); err != nil {
		return err
	}

	if agentAddr != "" {
		// The ConfigMap informer would be created when the controller
		// starts; ask for it now so that it exists before the agent starts.
		if _, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
			return err
		}
		if err := mgr.Add(agentRunnable(mgr, &built, agentAddr, agentToken)); err != nil {
			return err
		}
	}

	klog.InfoS("starting manager", "namespace", namespace)
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	klog.InfoS("shut down", "reconciled", r.reconciled.Load())
	return nil
}

// agentRunnable serves, once the manager's cache has synced, the engine
// informers built so far with agent.Serve, until the manager stops.
// agent.NewHandler takes its informers when it is built, and
// controller-runtime builds informers lazily: an informer first asked for
// after this point is not served.
func agentRunnable(mgr manager.Manager, built *informers, addr, token string) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return nil // stopping before the cache synced
		}
		return agent.Serve(ctx, addr, agent.Options{
			Token: token,
			Name:  name,
			Listening: func(a net.Addr) {
				fmt.Fprintf(os.Stderr, "agent listening on %s\n", a)
			},
		}, built.all()...)
	})
}

// informerName names an informer by the resource it watches
// ("configmaps", "deployments.apps").
func informerName(mgr manager.Manager, obj runtime.Object) (name, resource string) {
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return fmt.Sprintf("%T", obj), ""
	}
	mapping, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return gvk.Kind, ""
	}
	resource = mapping.Resource.GroupResource().String()
	return resource, resource
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
