package cluster

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	// The reflectors under test log every injected fault; keep output
	// readable. Assertions never depend on logs.
	klog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
