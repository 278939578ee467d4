package kube

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// TestVerifyHealthyUnderChurn: with either queue, while the server takes
// more than 20 writes a second, ten verifies in a row find the cache equal
// to the server: a healthy informer is never reported as drifted.
func TestVerifyHealthyUnderChurn(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	for _, q := range []source.QueueKind{source.RealFIFO, source.DeltaFIFO} {
		t.Run(q.String(), func(t *testing.T) {
			ns := namespace(t, cs)
			for i := range 30 {
				createConfigMap(t, cs, ns, fmt.Sprintf("cm-%d", i))
			}
			s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}, Queue: q, PageSize: 7}, true)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var writes atomic.Int64
			for w := range 3 { // side by side: one writer alone is too slow on a busy machine
				wg.Go(func() { writes.Add(int64(churn(ctx, cs, ns, w))) })
			}
			began := time.Now()
			for i := range 10 {
				r, err := s.Verify(context.Background(), "configmaps")
				if err != nil {
					t.Fatalf("verify %d: %v", i, err)
				}
				if !r.Equal || r.Objects == 0 {
					t.Errorf("verify %d of a healthy informer: %s", i, r.Sentence())
				}
				time.Sleep(100 * time.Millisecond) // spread the verifies over the churn, not a wait
			}
			cancel()
			wg.Wait()
			if rate := float64(writes.Load()) / time.Since(began).Seconds(); rate < 20 {
				t.Errorf("only %.1f writes/s during the verifies, want at least 20", rate)
			}
		})
	}
}

// churn creates, updates and deletes configmaps of its own (names
// cm-W-N) until ctx ends and returns how many writes it made.
func churn(ctx context.Context, cs kubernetes.Interface, ns string, w int) int {
	r := rand.New(rand.NewPCG(7, uint64(w)))
	writes := 0
	api := cs.CoreV1().ConfigMaps(ns)
	for ctx.Err() == nil {
		name := fmt.Sprintf("cm-%d-%d", w, r.IntN(15))
		var err error
		switch r.IntN(3) {
		case 0:
			_, err = api.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		case 1:
			_, err = api.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"n": fmt.Sprint(writes)}}, metav1.UpdateOptions{})
		default:
			err = api.Delete(ctx, name, metav1.DeleteOptions{})
		}
		if err == nil {
			writes++
		}
		time.Sleep(10 * time.Millisecond) // a writer's pace: load for the verifies, not a wait
	}
	return writes
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyFindsLostEvents: a proxy loses one MODIFIED and one DELETED
// watch event; verify names exactly those two keys, the first stale and
// the second extra, and nothing else.
func TestVerifyFindsLostEvents(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	for _, name := range []string{"kept", "changed", "deleted"} {
		createConfigMap(t, cs, ns, name)
	}
	proxy := c.DropProxy(t)
	s := start(t, Options{Flags: flags(t, proxy.Kubeconfig, ns), Resources: []string{"configmaps"}, WatchList: WatchListOff}, true)
	if r, err := s.Verify(context.Background(), "configmaps"); err != nil || !r.Equal {
		t.Fatalf("before any loss: %+v, %v", r, err)
	}
	proxy.DropNext("MODIFIED", ns, "changed")
	proxy.DropNext("DELETED", ns, "deleted")
	api := cs.CoreV1().ConfigMaps(ns)
	ctx := context.Background()
	if _, err := api.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "changed"}, Data: map[string]string{"a": "b"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := api.Delete(ctx, "deleted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The informer can only tell once a later event moves it past the loss.
	createConfigMap(t, cs, ns, "later")
	waitfor.Within(t, waitFor, "the later configmap cached", func() (bool, string) {
		_, ok := s.Informer("configmaps").Cached(ns + "/later")
		return ok, fmt.Sprint(proxy.Dropped())
	})
	if got := proxy.Dropped(); len(got) != 2 {
		t.Fatalf("the proxy dropped %v", got)
	}
	r, err := s.Verify(ctx, "configmaps")
	if err != nil {
		t.Fatal(err)
	}
	if r.Equal || !slices.Equal(r.Stale, []string{ns + "/changed"}) || !slices.Equal(r.Extra, []string{ns + "/deleted"}) || len(r.Missing) != 0 {
		t.Fatalf("verify after losing two events: %s (%+v)", r.Sentence(), r)
	}
	t.Log(r.Sentence())
}
