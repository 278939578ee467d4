package kubetest

// APIServerPID is the process ID of the first API server, for a test that
// reads what it costs (/proc/<pid>/stat); 0 while it is not running.
func (c *Cluster) APIServerPID() int {
	c.mu.Lock()
	p := c.apiserver
	c.mu.Unlock()
	if p == nil || p.Exited() {
		return 0
	}
	return p.PID()
}
