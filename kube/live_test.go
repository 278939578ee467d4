package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// TestWatchAndSwitchNamespaceLive: while the source runs, ":svc" adds a
// services informer that syncs, ":ns other" moves the namespaced
// informers (and only them) to the other namespace with the same names,
// ":cm -A" watches every namespace, and an unknown resource names the
// close ones. The informer that was not touched keeps its listeners'
// counts: it did not restart.
func TestWatchAndSwitchNamespaceLive(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	first, second := namespace(t, cs), namespace(t, cs)
	bg := context.Background()
	for _, ns := range []string{first, second} {
		createConfigMaps(t, cs, ns, "cm-%d", 3)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: second, Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := cs.CoreV1().Services(second).Create(bg, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, first), Resources: []string{"cm", "ns"}}, true)
	nsInitial := s.Listener("namespaces", ownListener).Record().InitialAdds

	name, err := s.Watch(bg, "svc", source.Where{})
	if err != nil || name != "services" {
		t.Fatalf(":svc gave %q, %v", name, err)
	}
	synced := func(names ...string) {
		t.Helper()
		waitfor.Within(t, waitFor, strings.Join(names, ", ")+" synced", func() (bool, string) {
			f := s.Pull(0, 0)
			for _, n := range names {
				i := slices.IndexFunc(f.Snapshots, func(x source.Informer) bool { return x.Name == n })
				if i < 0 || !f.Snapshots[i].Synced {
					return false, fmt.Sprintf("%+v", f.Snapshots)
				}
			}
			return true, ""
		})
	}
	synced("services")
	if got := cached(s, "services"); len(got) != 0 {
		t.Errorf("services in %s: %v (the service is in the other namespace)", first, got)
	}

	if err := s.UseNamespace(bg, source.Where{Namespace: second}); err != nil {
		t.Fatal(err)
	}
	synced("configmaps", "services", "namespaces")
	var names []string
	for _, e := range s.Informers() {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"configmaps", "namespaces", "services"}) {
		t.Errorf("informers after :ns %v", names)
	}
	if got, want := cached(s, "configmaps"), serverConfigMaps(t, cs, second); !maps.Equal(got, want) {
		t.Errorf("configmaps after :ns %s: %v, want %v", second, got, want)
	}
	if got := cached(s, "services"); len(got) != 1 {
		t.Errorf("services after :ns %s: %v", second, got)
	}
	if sc := s.Scope(); sc.Namespace != second || sc.AllNamespaces {
		t.Errorf("scope after :ns: %+v", sc)
	}
	if got := s.Listener("namespaces", ownListener).Record().InitialAdds; got != nsInitial {
		t.Errorf("the cluster-scoped namespaces informer restarted: %d initial adds, then %d", nsInitial, got)
	}
	f := s.Pull(0, 0)
	for _, inf := range f.Snapshots {
		if inf.Name == "configmaps" && inf.Namespace != second {
			t.Errorf("configmaps says namespace %q", inf.Namespace)
		}
	}

	if _, err := s.Watch(bg, "cm", source.Where{All: true}); err != nil {
		t.Fatal(err)
	}
	synced("configmaps")
	if got := len(cached(s, "configmaps")); got < 6 {
		t.Errorf("%d configmaps cached across every namespace, want at least 6", got)
	}

	_, err = s.Watch(bg, "servces", source.Where{})
	if err == nil || !strings.Contains(err.Error(), `"servces"`) || !strings.Contains(err.Error(), "services") {
		t.Errorf("a typo: %v", err)
	}
}
