package kube

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informtop/informtop/internal/kubetest"
)

// BenchmarkVerify: one verify of the 10,000 configmaps of BenchmarkSync's
// dataset (a synced informer, metadata-only LIST at its resourceVersion in
// pages of 500) beside `kubectl get -o name` of the same configmaps, in
// alternating order. Reports each one's time, the bytes verify read, and
// how long the pipeline was held for the cut.
func BenchmarkVerify(b *testing.B) {
	c := kubetest.Shared(b)
	createFixtures(b, c)
	ds := benchDatasets[0]
	e := &benchEnv{c: c, ds: ds, cacheDir: b.TempDir()}
	var read atomic.Int64
	flags := benchFlags(e)
	flags.WithWrapConfigFn(func(cfg *rest.Config) *rest.Config {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, &read} })
		return cfg
	})
	s, err := New(context.Background(), Options{Flags: flags, Resources: []string{ds.resource}})
	if err != nil {
		b.Fatal(err)
	}
	run := startSource(s, storeObjects(s, withoutManagedFields))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run.sync(ctx); err != nil {
		b.Fatal(err)
	}
	defer run.stop()
	name := s.Informers()[0].Name()
	var verifying, kubectl, held time.Duration
	var bytes int64
	n := 0
	for b.Loop() {
		k := kubectlGet(b, e)
		if n%2 == 0 {
			kubectl += timed(b, func() error { return k.sync(ctx) })
		}
		before := read.Load()
		began := time.Now()
		r, err := s.Verify(ctx, name)
		verifying += time.Since(began)
		bytes += read.Load() - before
		if err != nil || !r.Equal || r.Objects != ds.n {
			b.Fatalf("verify: %v: %s", err, r.Sentence())
		}
		held += r.Held
		if n%2 == 1 {
			kubectl += timed(b, func() error { return k.sync(ctx) })
		}
		n++
	}
	b.ReportMetric(float64(verifying.Nanoseconds())/float64(n), "ns/verify")
	b.ReportMetric(float64(kubectl.Nanoseconds())/float64(n), "ns/kubectl-get")
	b.ReportMetric(float64(bytes)/float64(n), "bytes-read/verify")
	b.ReportMetric(float64(held.Microseconds())/float64(n), "µs-held/verify")
	b.ReportMetric(float64(ds.n), "objects")
}

func timed(b *testing.B, f func() error) time.Duration {
	began := time.Now()
	if err := f(); err != nil {
		b.Fatal(err)
	}
	return time.Since(began)
}

// countingTransport counts response body bytes.
type countingTransport struct {
	rt   http.RoundTripper
	read *atomic.Int64
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{resp.Body, t.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	read *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.read.Add(int64(n))
	return n, err
}
