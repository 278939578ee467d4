package kubetest

import (
	"syscall"
	"testing"
)

// FreezeAPIServer stops the first API server with SIGSTOP: its
// connections stay open and accept bytes, but nothing comes back, as with
// a hung server. Only that process is signalled. ThawAPIServer resumes
// it; so does the end of t, so the cluster can shut down.
func (c *Cluster) FreezeAPIServer(t testing.TB) {
	t.Helper()
	c.signalAPIServer(t, "FreezeAPIServer", syscall.SIGSTOP)
	t.Cleanup(c.ThawAPIServer)
}

// ThawAPIServer resumes an API server FreezeAPIServer stopped (SIGCONT);
// it does nothing to a running one.
func (c *Cluster) ThawAPIServer() {
	if p := c.runningAPIServer(); p != nil {
		_ = p.Signal(syscall.SIGCONT)
	}
}
