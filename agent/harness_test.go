package agent

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// testSource is client-go's fake controller source, unable to stream
// initial lists so the reflector LISTs at once.
type testSource struct {
	*fcache.FakeControllerSource
}

func (testSource) IsWatchListSemanticsUnSupported() bool { return true }

func newTestSource(t *testing.T, objs ...runtime.Object) testSource {
	src := testSource{fcache.NewFakeControllerSource()}
	t.Cleanup(src.Shutdown)
	for _, o := range objs {
		src.Add(o)
	}
	return src
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
}

// podInformer builds a pods informer of set's over src, as a controller
// would through NewInformer, named name.
func podInformer(set *Set, src testSource, name string) cache.SharedIndexInformer {
	return NewInformer(set, WithName(name))(src, &corev1.Pod{}, 0, cache.Indexers{})
}

// start runs inf until the test ends and waits for it to sync.
func start(t *testing.T, inf cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	waitfor.True(t, "the informer to sync", inf.HasSynced)
}

// server serves set's endpoint for the test's lifetime.
func server(t *testing.T, set *Set, opts Options) *httptest.Server {
	t.Helper()
	h, err := NewHandler(set, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
