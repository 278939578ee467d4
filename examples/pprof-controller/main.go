// Command pprof-controller is a client-go controller that knows nothing of
// informtop: no import of it, no agent. It serves what many controllers
// already serve, net/http/pprof and Prometheus metrics of its workqueue,
// which is all `informtop attach --pprof` needs to name a stuck handler
// (docs/attach-pprof.md).
//
// It watches ConfigMaps; its handlers put a namespace/name key on a
// workqueue named "configmaps", and workers take keys off it. A
// ConfigMap labelled informtop.example/block=true holds the OnAdd or
// OnUpdate call that receives it in holdWhileLabelled until the file
// --release-file exists, as a handler stuck on one object would.
//
// Once its HTTP server listens it prints "pprof listening on ADDR".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // the whole point: /debug/pprof/ on http.DefaultServeMux
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

const blockLabel = "informtop.example/block"

func main() {
	var (
		kubeconfig  = flag.String("kubeconfig", "", "path to a kubeconfig; default: $KUBECONFIG, then ~/.kube/config")
		namespace   = flag.String("namespace", "", "namespace to watch; default: every namespace")
		addr        = flag.String("addr", "127.0.0.1:0", "address of the pprof and metrics server (port 0: a free port)")
		releaseFile = flag.String("release-file", filepath.Join(os.TempDir(), "pprof-controller.release"), "a ConfigMap labelled "+blockLabel+"=true holds its handler until this file exists")
	)
	flag.Parse()
	if err := run(*kubeconfig, *namespace, *addr, *releaseFile); err != nil {
		fmt.Fprintln(os.Stderr, "pprof-controller:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, namespace, addr, releaseFile string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	workqueue.SetProvider(newMetrics(reg))
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "configmaps"})
	defer queue.ShutDown()

	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	inf := factory.Core().V1().ConfigMaps().Informer()
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			holdWhileLabelled(obj, releaseFile)
			enqueue(obj)
		},
		UpdateFunc: func(_, obj any) {
			holdWhileLabelled(obj, releaseFile)
			enqueue(obj)
		},
		DeleteFunc: enqueue,
	}); err != nil {
		return err
	}

	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "pprof-controller:", err)
		}
	}()
	defer srv.Close()
	fmt.Fprintf(os.Stderr, "pprof listening on %s\n", ln.Addr())

	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errors.New("the ConfigMap informer did not sync")
	}
	for range 2 {
		go wait.UntilWithContext(ctx, func(context.Context) {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				queue.Done(key)
				queue.Forget(key)
			}
		}, time.Second)
	}
	<-ctx.Done()
	return nil
}

// holdWhileLabelled keeps the handler's call here while obj is labelled
// informtop.example/block=true and releaseFile does not exist: the code a
// stuck handler is in, as informtop attach --pprof names it.
func holdWhileLabelled(obj any, releaseFile string) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Labels[blockLabel] != "true" {
		return
	}
	for {
		if _, err := os.Stat(releaseFile); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
