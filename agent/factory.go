package agent

import (
	"context"
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// InformerFor returns what a client-go informer factory's InformerFor
// takes to build the informer of obj's type, NewInformer's way (client-go's
// own informer, or the engine WithEngine), listing and watching through
// the factory's clientset:
//
//	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
//
// Call it before anything asks the factory for that type: the factory
// keeps the first informer built per type, and its typed informers and
// listers then use this one. The factory's namespace and list options do
// not reach it (the factory keeps them to itself): give InNamespace. The
// type must be one of the Kubernetes API groups a kubernetes.Interface
// serves; the informer of another type is built with NewInformer.
func InformerFor(set *Set, obj kruntime.Object, opts ...InformerOption) func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
	if set == nil {
		set = NewSet() // served by no handler, as NewInformer's
	}
	var cfg informerConfig
	for _, o := range opts {
		o(&cfg)
	}
	return func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		gvr, _ := resourceOf(obj)
		rc := restClientFor(client, gvr.GroupVersion())
		if rc == nil || reflect.ValueOf(rc).IsNil() { // a fake clientset's is a nil pointer
			panic(fmt.Sprintf("agent.InformerFor: a kubernetes.Interface serves no group %q: build the informer of %T with agent.NewInformer and a ListerWatcher of its client (a fake clientset's, in tests)", gvr.GroupVersion(), obj))
		}
		lw := cache.ToListWatcherWithWatchListSemantics(listWatch(rc, gvr.Resource, cfg.namespace), client)
		return set.build(lw, obj, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, cfg)
	}
}

// InNamespace has an informer InformerFor builds watch one namespace
// only, as a factory made WithNamespace does.
func InNamespace(namespace string) InformerOption {
	return func(c *informerConfig) { c.namespace = namespace }
}

// listWatch lists and watches resource through rc, as client-go's
// generated informers do: in protobuf, which the API server serves for
// every built-in type (JSON costs the controller twice the CPU to decode).
func listWatch(rc rest.Interface, resource, namespace string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			return rc.Get().UseProtobufAsDefault().Namespace(namespace).Resource(resource).VersionedParams(&opts, scheme.ParameterCodec).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return rc.Get().UseProtobufAsDefault().Namespace(namespace).Resource(resource).VersionedParams(&opts, scheme.ParameterCodec).Watch(ctx)
		},
	}
}

// restClientFor is the clientset's REST client for gv; nil for a group
// it does not serve here.
func restClientFor(c kubernetes.Interface, gv schema.GroupVersion) rest.Interface {
	switch gv.String() {
	case "v1":
		return c.CoreV1().RESTClient()
	case "apps/v1":
		return c.AppsV1().RESTClient()
	case "batch/v1":
		return c.BatchV1().RESTClient()
	case "networking.k8s.io/v1":
		return c.NetworkingV1().RESTClient()
	case "rbac.authorization.k8s.io/v1":
		return c.RbacV1().RESTClient()
	case "policy/v1":
		return c.PolicyV1().RESTClient()
	case "coordination.k8s.io/v1":
		return c.CoordinationV1().RESTClient()
	case "discovery.k8s.io/v1":
		return c.DiscoveryV1().RESTClient()
	case "autoscaling/v2":
		return c.AutoscalingV2().RESTClient()
	case "storage.k8s.io/v1":
		return c.StorageV1().RESTClient()
	case "scheduling.k8s.io/v1":
		return c.SchedulingV1().RESTClient()
	case "node.k8s.io/v1":
		return c.NodeV1().RESTClient()
	case "certificates.k8s.io/v1":
		return c.CertificatesV1().RESTClient()
	case "events.k8s.io/v1":
		return c.EventsV1().RESTClient()
	case "admissionregistration.k8s.io/v1":
		return c.AdmissionregistrationV1().RESTClient()
	}
	return nil
}
