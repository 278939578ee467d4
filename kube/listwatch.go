package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/internal/wirekeep"
)

// Decoding names how a resource's objects are read.
type Decoding string

const (
	Typed        Decoding = "protobuf, typed"
	Unstructured Decoding = "JSON, unstructured"
	Metadata     Decoding = "protobuf, metadata only"
)

// listFunc and watchFunc are one resource's list and watch in one namespace.
type (
	listFunc  func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	watchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
)

// clients are the ones list-watchers are built from; none of them carries
// a request timeout, which would cut long lists and every watch.
type clients struct {
	config   *rest.Config
	dynamic  dynamic.Interface
	metadata metadata.Interface
}

func newClients(cfg *rest.Config) (*clients, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &clients{config: cfg, dynamic: dyn, metadata: md}, nil
}

// listWatch builds the list and watch of r in ns and the example object,
// choosing the decoding; see the package doc.
// keeper sees the typed client's objects decoded (see package wirekeep).
func (c *clients) listWatch(r resource, ns string, metadataOnly bool, keeper *wirekeep.Keeper) (listFunc, watchFunc, runtime.Object, Decoding, error) {
	gvr := r.mapping.Resource
	if !r.namespaced() {
		ns = ""
	}
	if metadataOnly {
		ri := c.metadata.Resource(gvr).Namespace(ns)
		return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, o) },
			ri.Watch, &metav1.PartialObjectMetadata{}, Metadata, nil
	}
	gvk := r.mapping.GroupVersionKind
	if scheme.Scheme.Recognizes(gvk) {
		example, err := scheme.Scheme.New(gvk)
		if err != nil {
			return nil, nil, nil, "", err
		}
		rc, err := c.typedClient(gvk.GroupVersion(), keeper)
		if err != nil {
			return nil, nil, nil, "", err
		}
		res := gvr.Resource
		list := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return rc.Get().NamespaceIfScoped(ns, ns != "").Resource(res).VersionedParams(&o, scheme.ParameterCodec).Do(ctx).Get()
		}
		watchFn := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			return rc.Get().NamespaceIfScoped(ns, ns != "").Resource(res).VersionedParams(&o, scheme.ParameterCodec).Watch(ctx)
		}
		return list, watchFn, example, Typed, nil
	}
	ri := c.dynamic.Resource(gvr).Namespace(ns)
	return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, o) },
		ri.Watch, &unstructured.Unstructured{}, Unstructured, nil
}

// typedClient talks protobuf to one group version, as generated clientsets
// do; keeper, when not nil, sees what it decodes.
func (c *clients) typedClient(gv schema.GroupVersion, keeper *wirekeep.Keeper) (*rest.RESTClient, error) {
	cfg := rest.CopyConfig(c.config)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	if keeper != nil {
		cfg.NegotiatedSerializer = keeper.Serializer(cfg.NegotiatedSerializer)
	}
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return rest.RESTClientFor(cfg)
}

// shaped applies the user's selectors and page size to every request, and
// says whether streamed initial lists may be used.
type shaped struct {
	list      listFunc
	watch     watchFunc
	label     string
	field     string
	pageSize  int64
	watchList WatchList
	keeper    *wirekeep.Keeper
}

// WireKeeper lets a recording store typed objects as they came.
func (s *shaped) WireKeeper() *wirekeep.Keeper { return s.keeper }

var _ cache.ListerWatcherWithContext = (*shaped)(nil)

func (s *shaped) options(o metav1.ListOptions) metav1.ListOptions {
	o.LabelSelector, o.FieldSelector = s.label, s.field
	return o
}

// ListWithContext pages the list when asked: a limit is ignored at
// resourceVersion "0" (served whole from the watch cache), so a paged
// list asks for a consistent read instead.
func (s *shaped) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	o = s.options(o)
	if s.pageSize > 0 {
		if o.Limit == 0 || o.Limit > s.pageSize {
			o.Limit = s.pageSize
		}
		if o.ResourceVersion == "0" && o.Continue == "" {
			o.ResourceVersion, o.ResourceVersionMatch = "", ""
		}
	}
	return s.list(ctx, o)
}

// WatchWithContext opens a watch with the user's selectors.
func (s *shaped) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	return s.watch(ctx, s.options(o))
}

// List and Watch are the context-free forms the engine also accepts.
func (s *shaped) List(o metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), o)
}

// Watch is WatchWithContext without a context.
func (s *shaped) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), o)
}

// IsWatchListSemanticsUnSupported tells client-go's reflector whether it
// may stream the initial list.
func (s *shaped) IsWatchListSemanticsUnSupported() bool { return s.watchList == WatchListOff }
