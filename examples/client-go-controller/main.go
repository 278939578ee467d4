// Command client-go-controller is the classic client-go controller, in the
// shape of kubernetes/sample-controller (informer → event handler →
// rate-limited workqueue → workers), with informtop's debug agent added:
// four lines, marked "informtop" below. The agent observes client-go's own
// informer and the workqueue and serves them on loopback, for
// `informtop attach 127.0.0.1:6060`.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/agent"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "Path to a kubeconfig. Only required if out-of-cluster.")
	agentAddr := flag.String("agent-addr", "127.0.0.1:6060", "Where informtop's debug agent listens; loopback, for kubectl port-forward and informtop attach.")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.FromContext(ctx)

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		logger.Error(err, "Error building kubeconfig")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		logger.Error(err, "Error building kubernetes clientset")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}

	// informtop: what the agent serves, the informers and the workqueue.
	set, queues := agent.NewSet(), agent.NewWorkqueueMetrics()
	kubeInformerFactory := kubeinformers.NewSharedInformerFactory(kubeClient, 30*time.Second)
	// informtop: the factory's Deployment informer, client-go's own,
	// built through the agent. Before anything asks the factory for
	// Deployments: it keeps the first informer built per type.
	kubeInformerFactory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
	controller := NewController(ctx, kubeInformerFactory.Apps().V1().Deployments(), queues)

	g, ctx := errgroup.WithContext(ctx)
	// informtop: the agent, until ctx is done. Its error (the port is
	// taken, say) stops the controller too.
	g.Go(func() error {
		return agent.Serve(ctx, *agentAddr, set, agent.ServeOptions{Options: agent.Options{Workqueues: queues}})
	})
	g.Go(func() error {
		kubeInformerFactory.Start(ctx.Done())
		defer kubeInformerFactory.Shutdown()
		return controller.Run(ctx, 2)
	})
	if err := g.Wait(); err != nil {
		logger.Error(err, "Error running controller")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	klog.Flush()
}
