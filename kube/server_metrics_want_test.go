package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// Leaving the Pipeline view stops the reads of /metrics: a reading that
// comes due after the user has left (the loop waits out its gap between
// two) is not made, counted at the server; coming back reads at once.
func TestServerMetricsStopWhenTheViewIsLeft(t *testing.T) {
	var reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			reads.Add(1)
			_, _ = w.Write([]byte("# nothing\n"))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
	fake := clocktesting.NewFakeClock(time.Now())
	turned := make(chan bool)
	m := newServerMetrics(cs, srv.URL, "", "", DefaultServerMetricsEvery)
	m.clock, m.turned = fake, turned
	m.watch("configmaps", schema.GroupResource{Resource: "configmaps"})

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.run(ctx) }()
	defer func() { stop(); <-done }()

	m.want() // the Pipeline view is shown: read at once
	if read := <-turned; !read || reads.Load() != 1 {
		t.Fatalf("on the Pipeline view: read %v, %d reads at the server", read, reads.Load())
	}
	m.want() // one more refresh on the view, then the user leaves it
	for !fake.HasWaiters() {
		runtime.Gosched() // the loop waiting out its gap
	}
	fake.Step(DefaultServerMetricsEvery)
	if read := <-turned; read || reads.Load() != 1 {
		t.Fatalf("%s after the view was left: read %v, %d reads at the server, want still 1", DefaultServerMetricsEvery, read, reads.Load())
	}
	m.want() // back on the view: the gap is over, so at once
	if read := <-turned; !read || reads.Load() != 2 {
		t.Fatalf("back on the Pipeline view: read %v, %d reads at the server", read, reads.Load())
	}
}
