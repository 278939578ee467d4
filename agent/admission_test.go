package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/engine"
)

// Beyond the bound, a request whose turn would come after the longest
// wait is turned away at once, with a sentence and Retry-After, before
// its token is looked at; a client that goes away stops waiting.
func TestRequestRateIsBounded(t *testing.T) {
	src := newTestSource(t, pod("a"))
	inf := engine.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, engine.Options{Name: "pods"})
	// One request per 10 s, a burst of one: the second must wait longer
	// than maxAdmissionWait, so it is refused without waiting.
	handler, err := NewHandler(Options{RequestsPerSecond: 0.1, Token: "t0ken"}, inf)
	if err != nil {
		t.Fatal(err)
	}
	first := httptest.NewRecorder()
	handler.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/informtop/v1/frame", nil))
	if first.Code != http.StatusUnauthorized {
		t.Fatalf("the first request, without a token: %d, want 401", first.Code)
	}
	second := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/informtop/v1/frame", nil)
	req.Header.Set("Authorization", "Bearer t0ken")
	handler.ServeHTTP(second, req)
	if second.Code != http.StatusServiceUnavailable || second.Header().Get("Retry-After") == "" ||
		second.Header().Get("X-Informtop-Agent-Version") != "" {
		t.Fatalf("the second request: %d, headers %v, want 503 with Retry-After and no version", second.Code, second.Header())
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
	if newAdmission(-1) != nil || !newAdmission(-1).wait(context.Background()) {
		t.Fatal("a negative rate means no bound")
	}
}
