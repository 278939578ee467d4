package kubetest

import (
	"syscall"
	"testing"
)

// KillAPIServer kills the first API server (SIGKILL), as a crash, an OOM
// kill or a lost node would, and returns once it is gone; etcd keeps
// running and StartAPIServer starts it again. Unlike StopAPIServer's
// SIGTERM, its connections and its port close at the same instant, so a
// client's next request is refused: none reaches a server that is
// shutting down and would take a watch only to end it at once.
func (c *Cluster) KillAPIServer(t testing.TB) {
	t.Helper()
	<-c.signalAPIServer(t, "KillAPIServer", syscall.SIGKILL).Done()
}
