package grafana

import (
	"testing"

	"go.uber.org/goleak"
)

// The scrape test runs an informer, a workqueue and an HTTP server; all
// must be gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
