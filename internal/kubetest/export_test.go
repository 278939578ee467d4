package kubetest

// PIDs returns the PIDs of every process c started, stopped ones included,
// so the tests can check that none is left behind.
func PIDs(c *Cluster) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := make([]int, 0, len(c.all))
	for _, p := range c.all {
		pids = append(pids, p.PID())
	}
	return pids
}
