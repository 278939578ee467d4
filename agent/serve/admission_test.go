package serve

import (
	"context"
	"testing"
)

// The admission's own rules, under the handler's (engineserve's
// TestRequestRateIsBounded asks a handler): a client that goes away
// stops waiting, a negative rate is no bound, and the default rate is
// split three quarters to the attach paths, a quarter to /metrics.
func TestAdmissionWaitsBoundsAndSplits(t *testing.T) {
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
