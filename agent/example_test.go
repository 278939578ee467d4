package agent_test

import (
	"context"
	"log"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informtop/informtop/agent"
)

// A client-go controller: the factory builds the informers the agent
// serves, and the agent listens on 127.0.0.1:6060 for informtop attach.
func Example() {
	var client kubernetes.Interface // your clientset
	set := agent.NewSet()
	factory := informers.NewSharedInformerFactory(client, 30*time.Second)
	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))

	ctx := context.Background()
	go func() {
		if err := agent.Serve(ctx, "127.0.0.1:6060", set, agent.ServeOptions{}); err != nil {
			log.Printf("informtop agent: %v", err) // a port already taken, say
		}
	}()
	// The controller's own code is unchanged: it gets the same typed
	// informer and lister from the factory.
	_ = factory.Apps().V1().Deployments().Informer()
	factory.Start(ctx.Done())
}

// Mounted on a server the controller already runs (controller-runtime's
// metrics server: Metrics.ExtraHandlers, behind its authentication).
func ExampleNewHandler() {
	set := agent.NewSet()
	h, err := agent.NewHandler(set, agent.Options{Name: "my-controller"})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/informtop/", h)
}

// Listening beyond loopback (a pod's port, for informtop attach through
// the API server or Prometheus) needs a token, kept in a mounted Secret.
func ExampleServe() {
	set := agent.NewSet()
	err := agent.Serve(context.Background(), ":9443", set, agent.ServeOptions{
		Options: agent.Options{TokenFile: "/var/run/secrets/informtop/token"},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// controller-runtime builds its cache's informers with NewInformer:
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		Cache: cache.Options{NewInformer: agent.NewInformer(set)},
//	})
func ExampleNewInformer() {
	set := agent.NewSet()
	var newInformer func(cache.ListerWatcher, runtime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer = agent.NewInformer(set)
	_ = newInformer
}

// A generated clientset's informer (a CRD's): the factory's InformerFor
// takes a function of its own clientset.
func ExampleInformerForClient() {
	type fooClientset interface{ SamplecontrollerV1alpha1() rest.Interface } // your generated clientset
	var foo runtime.Object                                                   // &samplev1alpha1.Foo{}
	set := agent.NewSet()
	newFooInformer := agent.InformerForClient(set, foo, func(c fooClientset) rest.Interface {
		return c.SamplecontrollerV1alpha1()
	})
	// fooInformerFactory.InformerFor(&samplev1alpha1.Foo{}, newFooInformer)
	_ = newFooInformer
}

// A dynamic informer: its ListerWatcher given to NewInformer, labelled
// with the resource it watches.
func ExampleWithResource() {
	var client dynamic.Interface
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	lw := dynamicinformer.NewFilteredDynamicInformer(client, gvr, "", 0, cache.Indexers{}, nil).Informer() // for its ListerWatcher's shape only
	_ = lw
	set := agent.NewSet()
	widgets := agent.NewInformer(set, agent.WithResource(gvr))(&cache.ListWatch{ /* client.Resource(gvr).List and .Watch */ }, &unstructured.Unstructured{}, 0, cache.Indexers{})
	_ = widgets
}

// One namespace, as a factory made WithNamespace watches.
func ExampleInNamespace() {
	set := agent.NewSet()
	factory := informers.NewSharedInformerFactoryWithOptions(nil, 0, informers.WithNamespace("shop"))
	factory.InformerFor(&corev1.Pod{}, agent.InformerFor(set, &corev1.Pod{}, agent.InNamespace("shop")))
}

// Two informers of one resource, told apart by name.
func ExampleWithName() {
	set := agent.NewSet()
	newInformer := agent.NewInformer(set, agent.WithName("pods-on-this-node"))
	_ = newInformer
}

// The controller's workqueue, the stage after the handlers.
func ExampleNewWorkqueueMetrics() {
	set := agent.NewSet()
	queues := agent.NewWorkqueueMetrics()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployments", MetricsProvider: queues})
	defer queue.ShutDown()
	h, err := agent.NewHandler(set, agent.Options{Workqueues: queues})
	if err != nil {
		log.Fatal(err)
	}
	_ = h
}
