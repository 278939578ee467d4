package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// TestAPIServerRestart: the API server goes away under a running informer,
// objects are deleted through a second API server meanwhile, and the first
// comes back with a fresh watch cache. The reflector cannot resume its old
// resourceVersion, relists, and every listener gets a
// DeletedFinalStateUnknown for exactly the deleted keys; the store ends
// equal to the server. While it is down, the source says so.
func TestAPIServerRestart(t *testing.T) {
	c := kubetest.Start(t) // its own cluster: this test stops the API server
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	createConfigMaps(t, cs, ns, "cm-%02d", 20)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	waitfor.Within(t, waitFor, "the watch opening", func() (bool, string) {
		r := s.Informer("configmaps").State().Reflector
		return r.WatchOpen, fmt.Sprintf("%+v", r)
	})

	c.StopAPIServer()
	waitfor.Within(t, waitFor, "the source noticing the outage", func() (bool, string) {
		st := s.Pull(0, 0).Status
		return st.State == source.Disconnected && strings.Contains(st.Message, "cannot reach the API server"), fmt.Sprintf("%+v", st)
	})
	second, err := kubernetes.NewForConfig(c.StartSecondAPIServer(t))
	if err != nil {
		t.Fatal(err)
	}
	deleted := []string{ns + "/cm-03", ns + "/cm-11", ns + "/cm-17"}
	for _, k := range deleted {
		name := strings.TrimPrefix(k, ns+"/")
		if err := second.CoreV1().ConfigMaps(ns).Delete(bg, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.StartAPIServer(t)

	want := serverConfigMaps(t, cs, ns)
	waitfor.Within(t, waitFor, "the store converging after the restart", func() (bool, string) {
		got := cached(s, "configmaps")
		return maps.Equal(got, want), fmt.Sprintf("%d cached, %d on the server", len(got), len(want))
	})
	for _, name := range []string{"informtop"} {
		l := s.Listener("configmaps", name)
		waitfor.Within(t, waitFor, name+" getting the tombstones", func() (bool, string) {
			r := l.Record()
			return r.Tombstones == len(deleted), fmt.Sprintf("%+v", r)
		})
		r := l.Record()
		got := slices.Sorted(maps.Keys(r.TombstoneKeys))
		if !slices.Equal(got, deleted) || r.Deletes != len(deleted) || len(r.Anomalies) > 0 {
			t.Errorf("%s: tombstones for %v (deletes %d, anomalies %v), want exactly %v", name, got, r.Deletes, r.Anomalies, deleted)
		}
		if !maps.Equal(l.View(), want) {
			t.Errorf("%s's view differs from the server", name)
		}
	}
	if snap := s.Informer("configmaps").State(); snap.Reflector.Relists == 0 {
		t.Errorf("no relist counted: %+v", snap.Reflector)
	}
	if st := s.Pull(0, 0).Status; st.State != source.Live {
		t.Errorf("status after the restart: %+v", st)
	}
}
