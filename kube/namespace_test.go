package kube

import (
	"context"
	"errors"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// -n of a namespace that does not exist is refused with the names nearest
// to it, as are :ns and ":deploy -n" of one while the source runs, which
// then keeps watching where it was.
func TestNamespaceThatDoesNotExist(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	_, err := New(context.Background(), Options{Flags: flags(t, c.Kubeconfig, ns+"x"), Resources: []string{"configmaps"}})
	if !errors.Is(err, errNoNamespace) || !strings.Contains(err.Error(), "-n "+ns+"x") || !strings.Contains(err.Error(), "did you mean "+ns) {
		t.Fatalf("-n of a namespace that does not exist: %v", err)
	}
	// A cluster-scoped resource alone has nothing to do with -n.
	start(t, Options{Flags: flags(t, c.Kubeconfig, ns+"x"), Resources: []string{"namespaces"}}, true)

	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	bg := context.Background()
	if err := s.UseNamespace(bg, source.Where{Namespace: "nope"}); !errors.Is(err, errNoNamespace) || !strings.Contains(err.Error(), "namespace nope does not exist") {
		t.Fatalf(":ns nope: %v", err)
	}
	if sc := s.Scope(); sc.Namespace != ns || s.Pull(0, 0).Snapshots[0].Namespace != ns {
		t.Errorf("after a refused :ns the source watches %+v, informer in %q; want %s", sc, s.Pull(0, 0).Snapshots[0].Namespace, ns)
	}
	if _, err := s.Watch(bg, "secrets", source.Where{Namespace: "nope"}); !errors.Is(err, errNoNamespace) {
		t.Fatalf(":secrets -n nope: %v", err)
	}
	if err := s.UseNamespace(bg, source.Where{All: true}); err != nil {
		t.Fatalf(":ns all: %v", err)
	}
	if n := s.Pull(0, 0).Notes; len(n) != 0 {
		t.Errorf("notes for namespaces that were checked: %q", n)
	}
}

// A user bound to a Role in one namespace may not get namespaces: whether
// it exists cannot be checked, so informtop says so and watches it.
func TestNamespaceThatCannotBeChecked(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	s := start(t, Options{Flags: flags(t, kc, ns), Resources: []string{"configmaps"}}, true)
	notes := s.Pull(0, 0).Notes
	if len(notes) != 1 || !strings.Contains(notes[0], "whether namespace "+ns+" exists could not be checked") || !strings.Contains(notes[0], "may not get namespaces") {
		t.Fatalf("notes: %q", notes)
	}
	// :ns of another is not refused either (the user may not check it).
	if err := s.UseNamespace(context.Background(), source.Where{Namespace: "nope"}); err != nil {
		t.Fatalf(":ns nope for a user who may not get namespaces: %v", err)
	}
	if notes := s.Pull(0, 0).Notes; len(notes) != 1 || !strings.Contains(notes[0], "namespace nope") {
		t.Errorf("notes after :ns nope: %q", notes)
	}
}
