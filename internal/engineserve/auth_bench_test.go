package engineserve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/benchlw"
)

// benchToken is as long as a generated token usually is (32 random bytes
// in hex), longer than the 32 bytes a string converts into on the stack.
const benchToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// discardWriter is a ResponseWriter that keeps the status only; its
// header map is cleared and reused, so what a benchmark counts is the
// handler's own allocations, not the writer's.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkRequestCheck: what the agent spends on a request before and
// around its answer, handler only, no network: a refusal (no token, a
// wrong one) and the cheapest answer (a cache's generation, one number)
// with the token. No rate bound, so that the check is what is measured.
func BenchmarkRequestCheck(b *testing.B) {
	inf := benchInformer(benchlw.New(0), "pods")
	h, err := NewHandler(serve.Options{Name: "bench", Token: benchToken, RequestsPerSecond: -1, Registry: prometheus.NewRegistry()}, inf)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, path, token string
		want              int
	}{
		{"refused-no-token", api.PathFrame, "", http.StatusUnauthorized},
		{"refused-wrong-token", api.PathFrame, benchToken[1:] + "x", http.StatusUnauthorized},
		{"generation-with-token", api.PathGeneration + "?informer=pods", benchToken, http.StatusOK},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.header)
				h.ServeHTTP(w, req)
				if w.status != c.want {
					b.Fatalf("GET %s: %d, want %d", c.path, w.status, c.want)
				}
			}
		})
	}
}
