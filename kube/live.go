package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/source"
)

// liveClients is what watching another resource or namespace while the
// source runs needs: the same discovery, clients and options New used.
type liveClients struct {
	mapper  meta.RESTMapper
	disco   discovery.DiscoveryInterface
	clients *clients
	review  kubernetes.Interface
	opts    Options
	as      string        // --as, for the access checks
	timeout time.Duration // bounds discovery and the access checks
	// mu makes changes one at a time: two :ns in a row must not race
	// each other's replacements.
	mu *sync.Mutex
}

var _ source.Retargeting = (*Source)(nil)

// Watch implements source.Retargeting.
func (s *Source) Watch(ctx context.Context, arg string, where source.Where) (string, error) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.live.timeout)
	defer cancel()
	res, err := resources(s.live.mapper, s.live.disco, []string{arg})
	if err != nil {
		return "", err
	}
	r := res[0]
	ns := s.namespaceFor(where)
	if r.namespaced() && where.Namespace != "" && !where.All {
		// Only a namespace that does not exist stops it: the note of one
		// that could not be checked belongs to the source's namespace.
		if _, err := checkNamespace(ctx, s.live.review, ns, s.live.as, s.server); err != nil {
			return "", err
		}
	}
	name := r.name()
	cur, watched := s.fact(name)
	if watched && (!r.namespaced() || cur.namespace == ns) {
		return name, nil
	}
	old := ""
	if watched {
		old = name
	}
	teachRedactedKinds(res)
	if err := s.add(r, ns, denied(ctx, s.live.review, r, ns, s.live.as), old); err != nil {
		return "", fmt.Errorf("cannot watch %s: %w", name, err)
	}
	return name, nil
}

// UseNamespace implements source.Retargeting: each namespaced informer is
// replaced by one in the new namespace, in place; cluster-scoped ones
// keep running.
func (s *Source) UseNamespace(ctx context.Context, where source.Where) error {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.live.timeout)
	defer cancel()
	ns := s.namespaceFor(where)
	note := ""
	if ns != "" {
		var err error
		if note, err = checkNamespace(ctx, s.live.review, ns, s.live.as, s.server); err != nil {
			return err // nothing changed: the informers keep watching where they were
		}
	}
	s.factsMu.Lock()
	s.scope.Namespace, s.scope.AllNamespaces = ns, ns == ""
	s.nsNote = note
	s.factsMu.Unlock()
	for _, e := range s.Informers() {
		f, ok := s.fact(e.Name())
		if !ok || !f.res.namespaced() || f.namespace == ns {
			continue
		}
		if err := s.add(f.res, ns, denied(ctx, s.live.review, f.res, ns, s.live.as), e.Name()); err != nil {
			return fmt.Errorf("cannot watch %s in the new namespace: %w", e.Name(), err)
		}
	}
	return nil
}

// namespaceFor is the namespace where names; "" means all namespaces.
func (s *Source) namespaceFor(where source.Where) string {
	switch {
	case where.All:
		return ""
	case where.Namespace != "":
		return where.Namespace
	}
	return s.Scope().Namespace
}
