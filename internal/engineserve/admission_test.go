package engineserve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

// Beyond the bound, a request whose turn would come after the longest
// wait is turned away at once, with a sentence and Retry-After; a request
// refused for its token spends nothing of the bound, and the attach paths
// and /metrics have a bound each. (The admission's own rules, a client
// that goes away and the default split, are serve's
// TestAdmissionWaitsBoundsAndSplits.)
func TestRequestRateIsBounded(t *testing.T) {
	src := newTestSource(t, pod("a"))
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods"})
	// A bound of one request per 10 s: each budget's burst is one, and
	// the next turn is further away than the longest wait (2 s), so a second
	// request is refused without waiting.
	handler, err := NewHandler(serve.Options{RequestsPerSecond: 0.1, Token: "t0ken"}, inf)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(path, token string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		handler.ServeHTTP(rec, req)
		return rec
	}
	for i := range 3 {
		if rec := ask("/informtop/v1/frame", ""); rec.Code != http.StatusUnauthorized {
			t.Fatalf("request %d without a token: %d, want 401", i+1, rec.Code)
		}
	}
	if rec := ask("/informtop/v1/frame", "t0ken"); rec.Code != http.StatusOK {
		t.Fatalf("the first request with the token, after three refused: %d %s, want 200", rec.Code, rec.Body)
	}
	if rec := ask("/metrics", "t0ken"); rec.Code != http.StatusOK {
		t.Fatalf("the first scrape, /metrics' own budget: %d %s, want 200", rec.Code, rec.Body)
	}
	for _, path := range []string{"/informtop/v1/frame", "/metrics"} {
		rec := ask(path, "t0ken")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
			rec.Header().Get("X-Informtop-Agent-Version") != "" {
			t.Fatalf("the second request of %s: %d, headers %v, want 503 with Retry-After and no version", path, rec.Code, rec.Header())
		}
	}
}
