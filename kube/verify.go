package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/verify"
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
	f, ok := s.facts[informer]
	if e == nil || !ok {
		return verify.Result{}, fmt.Errorf("there is no informer %q", informer)
	}
	cut := func(context.Context) (engine.CacheCut, error) { return e.Engine().Cut() }
	return verify.Run(ctx, cut, f.verify, s.pageSize)
}
