package engineserve

import (
	"github.com/informtop/informtop/agent/serve"

	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/engine"
)

// Beyond the bound, a request whose turn would come after the longest
// wait is turned away at once, with a sentence and Retry-After; a request
// refused for its token spends nothing of the bound, and the attach paths
// and /metrics have a bound each. A client that goes away stops waiting.
func TestRequestRateIsBounded(t *testing.T) {
	src := newTestSource(t, pod("a"))
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods"})
	// A bound of one request per 10 s: each budget's burst is one, and
	// the next turn is further away than maxAdmissionWait, so a second
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

	a := newAdmission(1)
	if !a.wait(context.Background()) {
		t.Fatal("the burst admits the first request")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a.wait(ctx) {
		t.Fatal("a request whose client went away is not admitted")
	}
	if newAdmission(-1) != nil || !newAdmission(-1).wait(context.Background()) || newBudgets(-1) != (budgets{}) {
		t.Fatal("a negative rate means no bound")
	}
	b := newBudgets(0)
	if got := float64(b.attach.limit.Limit() + b.metrics.limit.Limit()); got != defaultRequestsPerSecond || b.attach.limit.Burst() != 75 {
		t.Fatalf("the default budgets: %v/s together, an attach burst of %d; want %d/s, 75", got, b.attach.limit.Burst(), defaultRequestsPerSecond)
	}
}
