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
// takes to build the informer of obj's type, listing and watching through
// the factory's clientset (as client-go's generated informers do), and
// has the set serve it:
//
//	factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(set, &appsv1.Deployment{}))
//
// Call it before anything asks the factory for that type: the factory
// keeps the first informer built per type, and its typed informers and
// listers then use this one. The factory's namespace and list options do
// not reach it (the factory keeps them to itself): give InNamespace. The
// type must be in one of the API groups a kubernetes.Interface serves;
// InformerForClient serves a generated clientset's types (CRDs).
func InformerFor(set *Set, obj kruntime.Object, opts ...InformerOption) func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
	gvr, _ := resourceOf(obj, schema.GroupVersionResource{})
	return InformerForClient(set, obj, func(c kubernetes.Interface) rest.Interface {
		rc := restClientFor(c, gvr.GroupVersion())
		if rc == nil || reflect.ValueOf(rc).IsNil() { // a fake clientset's is a nil pointer
			panic(fmt.Sprintf("agent.InformerFor: a kubernetes.Interface serves no group %q: build the informer of %T with agent.InformerForClient and its own clientset, or agent.NewInformer and a ListerWatcher (a fake clientset's, in tests)", gvr.GroupVersion(), obj))
		}
		return rc
	}, opts...)
}

// InformerForClient is InformerFor for the informer factory of a
// generated clientset (a CRD's: sample-controller's Foo, say): restClient
// picks the clientset's client of obj's group, whose group and version
// name the informer's resource where no scheme knows the type yet.
//
//	fooInformerFactory.InformerFor(&samplev1alpha1.Foo{}, agent.InformerForClient(set, &samplev1alpha1.Foo{},
//		func(c clientset.Interface) rest.Interface { return c.SamplecontrollerV1alpha1().RESTClient() }))
func InformerForClient[C any](set *Set, obj kruntime.Object, restClient func(C) rest.Interface, opts ...InformerOption) func(C, time.Duration) cache.SharedIndexInformer {
	if set == nil {
		set = NewSet() // served by no handler, as NewInformer's
	}
	var cfg informerConfig
	for _, o := range opts {
		o(&cfg)
	}
	return func(client C, resync time.Duration) cache.SharedIndexInformer {
		rc := restClient(client)
		c := cfg
		if c.gvr.Resource == "" {
			c.gvr = rc.APIVersion().WithResource("")
		}
		gvr, _ := resourceOf(obj, c.gvr)
		_, _, err := scheme.Scheme.ObjectKinds(obj)
		lw := cache.ToListWatcherWithWatchListSemantics(listWatch(rc, gvr.Resource, c.namespace, err == nil), client)
		return set.build(lw, obj, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, c)
	}
}

// InNamespace has an informer InformerFor builds watch one namespace
// only, as a factory made WithNamespace does.
func InNamespace(namespace string) InformerOption {
	return func(c *informerConfig) { c.namespace = namespace }
}

// listWatch lists and watches resource through rc, as client-go's
// generated informers do: in protobuf for the types client-go's scheme
// holds, which the API server serves so (JSON costs the controller twice
// the CPU to decode), in JSON for the rest (custom resources).
func listWatch(rc rest.Interface, resource, namespace string, protobuf bool) *cache.ListWatch {
	req := func(opts *metav1.ListOptions) *rest.Request {
		r := rc.Get()
		if protobuf {
			r = r.UseProtobufAsDefault()
		}
		return r.Namespace(namespace).Resource(resource).VersionedParams(opts, scheme.ParameterCodec)
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			return req(&opts).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return req(&opts).Watch(ctx)
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
