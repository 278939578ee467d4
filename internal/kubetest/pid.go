package kubetest

// APIServerPID is the process ID of the first API server, for a test that
// reads what it costs (/proc/<pid>/stat); 0 while it is not running.
func (c *Cluster) APIServerPID() int {
	p := c.runningAPIServer()
	if p == nil {
		return 0
	}
	return p.PID()
}
