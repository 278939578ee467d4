// Command client-go-controller is the test and benchmark twin of
// examples/client-go-controller: the same classic client-go controller
// (informer → event handler → rate-limited workqueue → workers, on
// Deployments) with the agent's lines, plus what only the tests need:
// handlers that misbehave on demand (--handler-delay, --block-handler
// until --release-file exists), the agent's address announced on stderr,
// and the process measured from outside (package harness). The agent's
// lines are in informtop.go; `go build -tags plain` leaves them out
// (plain.go) and links no informtop package, which is what the cost
// benchmark compares it with (cmd/informtop/cost_e2e_test.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/examples/internal/harness"
)

// name is what the agent calls this process in informtop attach.
const name = "client-go-controller"

func main() {
	var (
		kubeconfig   = flag.String("kubeconfig", "", "path to a kubeconfig; default: $KUBECONFIG, then ~/.kube/config")
		namespace    = flag.String("namespace", "", "namespace to watch; default: every namespace")
		workers      = flag.Int("workers", 2, "number of workers taking keys off the workqueue")
		resync       = flag.Duration("resync", 0, "the informer factory's default resync period (0: never)")
		handlerDelay = flag.Duration("handler-delay", 0, "sleep this long in every event handler callback")
		blockHandler = flag.Bool("block-handler", false, "block every event handler callback until --release-file exists")
		releaseFile  = flag.String("release-file", filepath.Join(os.TempDir(), name+".release"), "with --block-handler: callbacks proceed while this file exists")
		agentAddr    = flag.String("agent-addr", "127.0.0.1:0", "address of informtop's debug agent (port 0: a free port); empty: no agent")
		agentToken   = flag.String("agent-token", "", "token informtop attach must present to the agent")
		measure      = harness.Flags(flag.CommandLine)
	)
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopMeasuring, err := measure.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	defer stopMeasuring()
	if err := run(ctx, config{
		kubeconfig: *kubeconfig, namespace: *namespace, workers: *workers, resync: *resync,
		handlerDelay: *handlerDelay, blockHandler: *blockHandler, releaseFile: *releaseFile,
		agentAddr: *agentAddr, agentToken: *agentToken,
	}); err != nil {
		klog.Flush()
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	klog.Flush()
}

type config struct {
	kubeconfig, namespace string
	workers               int
	resync, handlerDelay  time.Duration
	blockHandler          bool
	releaseFile           string
	agentAddr, agentToken string
}

func run(ctx context.Context, cfg config) error {
	// informtop: what the debug agent serves (informtop.go).
	debug, err := newDebugAgent(cfg)
	if err != nil {
		return err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = cfg.kubeconfig
	restConfig, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}

	factory := informers.NewSharedInformerFactoryWithOptions(client, cfg.resync, informers.WithNamespace(cfg.namespace))
	// informtop, the one line per informer type: the factory's Deployment
	// informer is built through the agent (informtop.go). Before anything
	// asks the factory for Deployments: it keeps the first one built.
	debug.deployments(factory, cfg.namespace)
	deploymentInformer := factory.Apps().V1().Deployments()

	// informtop: the agent sees the workqueue through its MetricsProvider
	// (informtop.go).
	c := NewController(ctx, deploymentInformer.Lister(), deploymentInformer.Informer().HasSynced, debug.workqueueMetrics(), cfg)
	// Registered without a name: informtop shows the listener under the
	// name client-go gives it in its own logs, main.(*Controller).
	if _, err := deploymentInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addDeployment,
		UpdateFunc: c.updateDeployment,
		DeleteFunc: c.deleteDeployment,
	}); err != nil {
		return err
	}

	// informtop: the agent serves the informer and the workqueue to
	// informtop attach (informtop.go).
	waitAgent, err := debug.serve(ctx, cfg)
	if err != nil {
		return err
	}
	if cfg.blockHandler {
		klog.InfoS("event handler callbacks block until the release file exists", "releaseFile", cfg.releaseFile)
	}

	factory.Start(ctx.Done())
	c.Run(ctx, cfg.workers)

	// Shutting down: the workers have returned; stop the informers (and
	// the handler's goroutine) and the agent.
	factory.Shutdown()
	waitAgent()
	klog.InfoS("shut down", "reconciled", c.reconciled.Load())
	return nil
}

// Controller reconciles Deployments: handlers enqueue keys, workers
// reconcile them from the lister.
type Controller struct {
	lister     appslisters.DeploymentLister
	synced     cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[string]
	reconciled atomic.Int64

	// Teaching knobs: how each handler callback misbehaves.
	stop         <-chan struct{}
	handlerDelay time.Duration
	blockHandler bool
	releaseFile  string
}

// NewController builds a controller whose handler callbacks give up
// sleeping or blocking once ctx is done; its workqueue reports to
// metrics.
func NewController(ctx context.Context, lister appslisters.DeploymentLister, synced cache.InformerSynced, metrics workqueue.MetricsProvider, cfg config) *Controller {
	return &Controller{
		lister: lister,
		synced: synced,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployments", MetricsProvider: metrics}),
		stop:         ctx.Done(),
		handlerDelay: cfg.handlerDelay,
		blockHandler: cfg.blockHandler,
		releaseFile:  cfg.releaseFile,
	}
}

func (c *Controller) addDeployment(obj any) {
	c.misbehave()
	d := obj.(*appsv1.Deployment)
	klog.V(4).InfoS("Adding deployment", "deployment", klog.KObj(d))
	c.enqueue(d)
}

func (c *Controller) updateDeployment(old, cur any) {
	c.misbehave()
	oldD, curD := old.(*appsv1.Deployment), cur.(*appsv1.Deployment)
	klog.V(4).InfoS("Updating deployment", "deployment", klog.KObj(oldD))
	c.enqueue(curD)
}

func (c *Controller) deleteDeployment(obj any) {
	c.misbehave()
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		// The delete was missed while the watch was down; the relist
		// reports the last state the cache knew.
		tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			utilruntime.HandleError(fmt.Errorf("couldn't get object from tombstone %#v", obj))
			return
		}
		if d, ok = tombstone.Obj.(*appsv1.Deployment); !ok {
			utilruntime.HandleError(fmt.Errorf("tombstone contained object that is not a Deployment %#v", tombstone.Obj))
			return
		}
	}
	klog.V(4).InfoS("Deleting deployment", "deployment", klog.KObj(d))
	c.enqueue(d)
}

func (c *Controller) enqueue(d *appsv1.Deployment) {
	key, err := cache.MetaNamespaceKeyFunc(d)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("couldn't get key for object %#v: %w", d, err))
		return
	}
	c.queue.Add(key)
}

// misbehave sleeps --handler-delay, then with --block-handler waits until
// the release file exists; either gives up when the controller stops.
func (c *Controller) misbehave() {
	if c.handlerDelay > 0 {
		t := time.NewTimer(c.handlerDelay)
		select {
		case <-t.C:
		case <-c.stop:
			t.Stop()
			return
		}
	}
	if !c.blockHandler {
		return
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(c.releaseFile); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-c.stop:
			return
		}
	}
}

// Run waits for the cache to sync, runs workers until ctx is done, then
// shuts the queue down and waits for the workers to finish their item.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	klog.InfoS("Starting controller", "workers", workers)
	if !cache.WaitForNamedCacheSync(name, ctx.Done(), c.synced) {
		c.queue.ShutDown()
		return
	}
	klog.InfoS("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	klog.InfoS("Shutting down controller")
	c.queue.ShutDown()
	wg.Wait()
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.reconcile(ctx, key); err != nil {
		utilruntime.HandleError(fmt.Errorf("reconciling %s (will retry): %w", key, err))
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// reconcile only reads the Deployment from the lister, logs and counts.
func (c *Controller) reconcile(_ context.Context, key string) error {
	ns, n, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	d, err := c.lister.Deployments(ns).Get(n)
	switch {
	case apierrors.IsNotFound(err):
		klog.InfoS("reconciled "+key+" (deleted)", "total", c.reconciled.Add(1))
		return nil
	case err != nil:
		return err
	}
	klog.InfoS("reconciled "+key, "generation", d.Generation, "total", c.reconciled.Add(1))
	return nil
}
