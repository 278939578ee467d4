package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/attach"
	"github.com/informtop/informtop/kube"
)

// attachVerifier verifies an attached controller: its caches' cuts come
// from its agent, the server's lists from informtop's own connection
// (attach --verify --kubeconfig …). withVerifier adds it to the attach
// source's controls.
type attachVerifier struct {
	src          *attach.Source
	flags        *genericclioptions.ConfigFlags
	allNamespace bool
	label, field string
	pageSize     int64
	timeout      time.Duration

	once    sync.Once
	listers *kube.VerifyListers
	err     error
}

var _ source.Verifier = (*attachVerifier)(nil)

// withVerifier is src with v as its verifier, every other control its own.
func withVerifier(src source.Source, v source.Verifier) source.Source {
	return source.Decorate(src, source.Decoration{Controls: func(c source.Controls) source.Controls {
		c.Verifier = v
		return c
	}})
}

// Verify compares the named informer of the controller with the server:
// its resource is the one the agent reports, listed in -n's namespace
// (all namespaces with -A or when no namespace is set anywhere).
func (a *attachVerifier) Verify(ctx context.Context, informer string) (verify.Result, error) {
	a.once.Do(func() { a.listers, a.err = kube.NewVerifyListers(a.flags, a.timeout) })
	if a.err != nil {
		return verify.Result{}, a.err
	}
	resource := ""
	for _, s := range a.src.Pull(0, 0).Snapshots {
		if s.Name == informer {
			resource = s.Resource
		}
	}
	if resource == "" {
		return verify.Result{}, fmt.Errorf("the agent reports no resource for informer %s, so there is nothing to list it against", informer)
	}
	ns := ""
	if !a.allNamespace && a.flags.Namespace != nil {
		ns = *a.flags.Namespace
	}
	list, err := a.listers.Lister(resource, ns, a.label, a.field)
	if err != nil {
		return verify.Result{}, err
	}
	cut := func(ctx context.Context) (verify.Cut, error) { return a.src.Cut(ctx, informer) }
	return verify.Run(ctx, cut, list, a.pageSize)
}
