package kube

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"

	"github.com/informtop/informtop/agent/verify"
)

// verifyLister lists r as the informer sees it (namespace and selectors),
// metadata only, whatever the informer decodes: verify compares keys and
// resourceVersions, nothing else.
func (c *clients) verifyLister(r resource, ns, label, field string) verify.Lister {
	if !r.namespaced() {
		ns = ""
	}
	ri := c.metadata.Resource(r.mapping.Resource).Namespace(ns)
	return func(ctx context.Context, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
		o.LabelSelector, o.FieldSelector = label, field
		return ri.List(ctx, o)
	}
}

// Verify compares the named informer's cache with the API server at the
// resourceVersion the cache stands at.
func (s *Source) Verify(ctx context.Context, informer string) (verify.Result, error) {
	e := s.Informer(informer)
	f, ok := s.fact(informer)
	if e == nil || !ok {
		return verify.Result{}, fmt.Errorf("there is no informer %q", informer)
	}
	cut := func(context.Context) (verify.Cut, error) { return e.Cut() }
	return verify.Run(ctx, cut, f.verify, s.pageSize)
}

// VerifyListers resolves resources on the cluster behind flags, as New
// does, for comparing caches that live elsewhere (an attached controller's)
// with the API server. Discovery is bounded by timeout.
type VerifyListers struct {
	mapper  meta.RESTMapper
	disco   discovery.DiscoveryInterface
	clients *clients
}

// NewVerifyListers connects to the cluster behind flags.
func NewVerifyListers(flags *genericclioptions.ConfigFlags, timeout time.Duration) (*VerifyListers, error) {
	boundRequests(flags, timeout)
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, kubeconfigError(err)
	}
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		return nil, connectError(cfg.Host, err)
	}
	disco, err := flags.ToDiscoveryClient()
	if err != nil {
		return nil, connectError(cfg.Host, err)
	}
	cs, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	return &VerifyListers{mapper: mapper, disco: disco, clients: cs}, nil
}

// Lister lists the resource named as kubectl names it, in namespace (""
// for all) with the selectors the cache was built with.
func (v *VerifyListers) Lister(resourceArg, namespace, label, field string) (verify.Lister, error) {
	res, err := resources(v.mapper, v.disco, []string{resourceArg})
	if err != nil {
		return nil, err
	}
	return v.clients.verifyLister(res[0], namespace, label, field), nil
}
