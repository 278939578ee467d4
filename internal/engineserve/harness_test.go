package engineserve

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
)

// secretValue is the Secret's data; no answer may carry it.
const secretValue = "hunter2-correct-horse-battery"

var secretBase64 = base64.StdEncoding.EncodeToString([]byte(secretValue))

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
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}}}
}

func secret(name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Data:       map[string][]byte{"password": []byte(secretValue)},
		StringData: map[string]string{"token": secretValue},
	}
}

// fixture is a running pods informer with a listener blocked in its first
// OnAdd, and a secrets informer, sharing one event ring.
type fixture struct {
	pods, secrets *engine.Informer
	ring          *instr.Ring
	podSource     testSource
	release       chan struct{}
}

// startInformer runs inf until the test ends.
func startInformer(t *testing.T, inf *engine.Informer) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

func newFixture(t *testing.T, ringSize int, podOpts engine.Options) *fixture {
	f := &fixture{ring: instr.NewRing(ringSize), release: make(chan struct{})}
	f.podSource = newTestSource(t, pod("a"), pod("b"), pod("c"))
	secrets := newTestSource(t, secret("db"))

	podOpts.Name, podOpts.Resource = "pods", "pods"
	podOpts.Instrumentation.Events = f.ring
	podOpts.Indexers = cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	f.pods = engine.NewSharedIndexInformerWithOptions(f.podSource, &corev1.Pod{}, podOpts)
	f.secrets = engine.NewSharedIndexInformerWithOptions(secrets, &corev1.Secret{}, engine.Options{
		Name: "secrets", Resource: "secrets", Instrumentation: engine.Instrumentation{Events: f.ring},
	})
	release := f.release
	if _, err := f.pods.AddNamedEventHandler("blocked", cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { <-release },
	}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	startInformer(t, f.pods)
	startInformer(t, f.secrets)
	t.Cleanup(func() { close(release) }) // runs first: lets the listener finish before the informers stop
	waitfor.True(t, "the blocked listener to hold 2 pending notifications and the secrets informer to sync", func() bool {
		s := f.pods.Snapshot()
		return f.secrets.HasSynced() && f.pods.HasSynced() && len(s.Listeners) == 1 &&
			s.Listeners[0].InCallback != "" && s.Listeners[0].Pending == 2
	})
	return f
}

// server serves a handler for the test's lifetime.
func server(t *testing.T, opts serve.Options, informers ...*engine.Informer) *httptest.Server {
	t.Helper()
	h, err := NewHandler(opts, informers...)
	return serveHandler(t, h, err)
}

// serveHandler serves h, built with err, for the test's lifetime.
// Answers are shared as the handler shares them (a cache's while the
// informer received nothing new, a frame a tenth of a second, a scrape a
// second): a test that asks again for something it changed waits for the
// answer to show it (waitFor).
func serveHandler(t *testing.T, h http.Handler, err error) *httptest.Server {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
