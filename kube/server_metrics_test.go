package kube

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		st.EventsReceived < 3 || st.EventsDispatched == 0 || st.From != c.Server() {
		t.Fatalf("server figures %+v (informer at RV %d)", st, informerRV)
	}
	t.Log(st.Sentence())
}
