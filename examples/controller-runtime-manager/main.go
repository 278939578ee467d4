// Command controller-runtime-manager is a controller-runtime manager with
// one reconciler, for ConfigMaps, whose cache builds its informers with
// informtop's engine, and informtop's debug agent mounted in the
// manager's metrics server so `informtop attach` can show their queue,
// cache and handlers live.
//
// The only informtop-specific lines are the agent.Set, the
// cache.Options.NewInformer hook, which returns
// engine.NewSharedIndexInformerWithOptions and adds the informer to the
// set, and the handler agent.NewHandler builds with that set, given to
// the metrics server's ExtraHandlers. controller-runtime builds an
// informer the first time something asks its cache for a type, long after
// the metrics server's handlers are fixed; the set is what lets the agent
// serve every informer, whenever it is built.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
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
		agentAddr  = flag.String("agent-addr", "127.0.0.1:0", "address of the metrics server, which serves /metrics and informtop's debug agent under "+agentPath+" (port 0: a free port); empty: neither")
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

func run(ctx context.Context, namespace, agentAddr, agentToken string) error {
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}

	var (
		served = agent.NewSet()
		// One event ring for every informer, as informtop itself runs them.
		events = instr.NewRing(0)
		mgr    manager.Manager
	)
	cacheOpts := cache.Options{
		// controller-runtime creates an informer per type the first time
		// something asks its cache for that type; this hook makes each one
		// an engine informer and has the agent serve it from then on. It
		// runs only after NewManager has returned, so mgr is set.
		NewInformer: func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			name, resource := informerName(mgr, obj)
			inf := engine.NewSharedIndexInformerWithOptions(lw, obj, engine.Options{
				Name:            name,
				Resource:        resource,
				ResyncPeriod:    resync,
				Indexers:        indexers,
				Instrumentation: engine.Instrumentation{Events: events},
			})
			if err := served.Add(inf); err != nil {
				// The manager still gets its informer; only the agent
				// cannot tell it from another of the same name.
				klog.ErrorS(err, "informtop's agent does not serve this informer", "informer", name)
			}
			return inf
		},
	}
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	metricsOpts := metricsserver.Options{BindAddress: "0"} // no agent: no metrics server either
	if agentAddr != "" {
		if agentAddr, err = agentListenAddr(agentAddr, agentToken); err != nil {
			return err
		}
		// The handler exists before any informer does: the set fills as
		// the cache builds them. Its collector goes to controller-runtime's
		// registry, so the manager's own /metrics has informtop's series.
		h, err := agent.NewHandler(agent.Options{
			Token:     agentToken,
			Name:      name,
			Registry:  ctrlmetrics.Registry,
			Informers: served,
		})
		if err != nil {
			return err
		}
		metricsOpts = metricsserver.Options{
			BindAddress:   agentAddr,
			ExtraHandlers: map[string]http.Handler{agentPath: h},
		}
	}
	mgr, err = ctrl.NewManager(restConfig, ctrl.Options{
		Cache:                  cacheOpts,
		Metrics:                metricsOpts,
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
		go announce(ctx, agentAddr)
	}
	klog.InfoS("starting manager", "namespace", namespace)
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	klog.InfoS("shut down", "reconciled", r.reconciled.Load())
	return nil
}

// agentListenAddr applies agent.Serve's rules to the metrics server's
// address, which serves the caches through the agent (agent.CheckAddr),
// and resolves port 0 here to a free port, since controller-runtime does
// not tell which port it bound.
func agentListenAddr(addr, token string) (string, error) {
	addr, err := agent.CheckAddr(addr, agent.Options{Token: token})
	if err != nil {
		return "", fmt.Errorf("--agent-addr %s (--agent-token sets the token)", strings.TrimPrefix(err.Error(), "agent: "))
	}
	host, port, _ := net.SplitHostPort(addr)
	if port == "0" {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return "", fmt.Errorf("finding a free port on %s: %w", host, err)
		}
		_, port, _ = net.SplitHostPort(ln.Addr().String())
		_ = ln.Close()
	}
	return net.JoinHostPort(host, port), nil
}

// announce prints the agent's URL on stderr once the agent answers there,
// for people and tests to attach to. It asks for the agent's protocol
// header, so a port that another process took between agentListenAddr
// and the manager's bind is never announced (the manager then fails).
func announce(ctx context.Context, addr string) {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // a wildcard listener is reachable on loopback
	}
	probe := "http://" + net.JoinHostPort(host, port) + agentPath + strings.TrimPrefix(api.PathGeneration, "/")
	client := &http.Client{Timeout: time.Second}
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe, nil)
		if err != nil {
			return
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			// Any answer of the agent carries its version, a 401 or a 400
			// for the missing informer parameter included.
			if resp.Header.Get(api.VersionHeader) != "" {
				fmt.Fprintf(os.Stderr, "agent listening on http://%s%s\n", addr, agentPath)
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// informerName names an informer by the resource it watches
// ("configmaps", "deployments.apps"). The cache keeps typed, unstructured
// and metadata-only informers apart, so the latter two say which they are
// and the agent can serve all three.
func informerName(mgr manager.Manager, obj runtime.Object) (name, resource string) {
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return fmt.Sprintf("%T", obj), ""
	}
	name = gvk.Kind
	if mapping, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
		resource = mapping.Resource.GroupResource().String()
		name = resource
	}
	switch obj.(type) {
	case *metav1.PartialObjectMetadata:
		name += " (metadata)"
	case runtime.Unstructured:
		name += " (unstructured)"
	}
	return name, resource
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
