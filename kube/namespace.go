package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/say"
)

// namespacesNamed bounds how many namespaces a "does not exist" sentence
// lists when none is close to the one asked for.
const namespacesNamed = 8

// checkNamespace asks the server whether namespace ns exists. Listing in
// one that does not is no error to the API server: the informer syncs at
// once with nothing, which reads as an empty namespace. So a namespace
// the server says does not exist is an error naming the ones nearest (or
// some there are); one the user may not get (a user bound to a Role in
// one namespace may not read namespaces, which are cluster-scoped), or a
// check that failed, is a note saying it could not be checked, and
// watching goes on; "" and nil when it exists.
func checkNamespace(ctx context.Context, c kubernetes.Interface, ns, as, server string) (note string, err error) {
	_, err = c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	switch {
	case err == nil:
		return "", nil
	case apierrors.IsNotFound(err):
		return "", noNamespace(ctx, c, ns, server)
	case apierrors.IsForbidden(err):
		who := "you"
		if as != "" {
			who = as
		}
		return fmt.Sprintf("whether namespace %s exists could not be checked: %s may not get namespaces (RBAC); watching it anyway, so an empty cache may mean a misspelt namespace", ns, who), nil
	}
	return fmt.Sprintf("whether namespace %s exists could not be checked: %s; watching it anyway", ns, say.ErrorReason(err.Error(), "the request failed")), nil
}

// errNoNamespace is wrapped by the error of a namespace that does not exist.
var errNoNamespace = errors.New("no such namespace")

// noNamespace is the error for namespace ns, which the server says does
// not exist: with the names nearest to it, else a few of those there are,
// when the user may list them.
func noNamespace(ctx context.Context, c kubernetes.Interface, ns, server string) error {
	msg := fmt.Sprintf("namespace %s does not exist on %s", ns, server)
	list, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err == nil {
		names := make([]string, 0, len(list.Items))
		for _, n := range list.Items {
			names = append(names, n.Name)
		}
		if near := closest(ns, names, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		} else if len(names) > 0 {
			more := ""
			if len(names) > namespacesNamed {
				more = fmt.Sprintf(" and %d more", len(names)-namespacesNamed)
				names = names[:namespacesNamed]
			}
			msg += "; it has " + strings.Join(names, ", ") + more
		}
	}
	return noNamespaceError(msg + " (kubectl get namespaces lists them)")
}

// noNamespaceError is the sentence for a namespace that does not exist;
// it is errNoNamespace.
type noNamespaceError string

func (e noNamespaceError) Error() string      { return string(e) }
func (noNamespaceError) Is(target error) bool { return target == errNoNamespace }

// NamespaceNote says that whether the namespace watched exists could not
// be checked, and why; "" when it was checked or all are watched.
func (s *Source) NamespaceNote() string {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	return s.nsNote
}

// namespaceNote is the frames' notes: the namespace note, while there is one.
func (s *Source) namespaceNote() []string {
	if n := s.NamespaceNote(); n != "" {
		return []string{n}
	}
	return nil
}
