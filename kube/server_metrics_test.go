package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/internal/kubetest"
)

// TestServerFiguresBesideTheInformer: for an admin, the API server's own
// figures about configmaps fill the frame: its watch cache's
// resourceVersion (at or past what the informer has seen), its window,
// events received and dispatched, and where they came from.
func TestServerFiguresBesideTheInformer(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	for i := range 3 {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s.metrics.scrape(context.Background()) // the 5 s ticker would make the test wait
	f := s.Pull(0, 0)
	st := f.Server["configmaps"]
	informerRV, _ := strconv.ParseUint(f.Snapshots[0].LastSyncResourceVersion, 10, 64)
	cacheRV, err := strconv.ParseUint(st.WatchCacheResourceVersion, 10, 64)
	if !st.Available || err != nil || cacheRV < informerRV || st.WatchCacheCapacity <= 0 ||
		st.EventsReceived < 3 || st.EventsDispatched == 0 || !strings.HasPrefix(st.From, c.Server()+", the kube-apiserver started ") {
		t.Fatalf("server figures %+v (informer at RV %d)", st, informerRV)
	}
	// The informer's own initial list was served one way or another:
	// from the watch cache, from etcd, or streamed.
	if st.ListsFromCache+st.ListsFromStorage+st.WatchLists == 0 {
		t.Fatalf("no list of configmaps counted by the server: %+v", st)
	}
	t.Log(st.Sentence())
}

// TestServerFiguresSayWhichAPIServerAnswered: behind several API servers
// each scrape may reach another one; the figures say which answered (its
// start time) and, when it changed since the last read, that the counters
// are that server's own.
func TestServerFiguresSayWhichAPIServerAnswered(t *testing.T) {
	c := kubetest.Shared(t)
	first := testClients(t, c)
	second := kubernetes.NewForConfigOrDie(c.StartSecondAPIServer(t))
	m := newServerMetrics(first, "https://api.example:6443", "")
	m.resources["configmaps"] = schema.GroupResource{Resource: "configmaps"}
	ctx := context.Background()
	m.scrape(ctx)
	a := m.stats()["configmaps"]
	m.get = func(ctx context.Context) ([]byte, error) {
		return second.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	}
	m.scrape(ctx)
	b := m.stats()["configmaps"]
	if a.ServerStarted == nil || b.ServerStarted == nil || a.ServerStarted.Equal(*b.ServerStarted) {
		t.Fatalf("start times of the two API servers: %v and %v, want two different ones", a.ServerStarted, b.ServerStarted)
	}
	if !strings.HasPrefix(a.From, "https://api.example:6443, the kube-apiserver started ") || strings.Contains(a.From, "another API server") {
		t.Fatalf("first read from %q", a.From)
	}
	if !strings.Contains(b.From, "another API server than at the last read") {
		t.Fatalf("a read answered by another API server does not say so: %q", b.From)
	}
	// The admin may list the identity leases: at least this host's.
	if a.APIServers < 1 {
		t.Fatalf("API servers counted from identity leases: %d", a.APIServers)
	}
}
