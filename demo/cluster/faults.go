package cluster

// DropWatches closes every open watch stream, as a load balancer or an API
// server restart would. Clients re-watch from the last resourceVersion they
// saw; history still covers it, so no relist is needed.
func (c *Cluster) DropWatches() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropAllLocked()
}

// ExpireHistory compacts every resource's history so that every
// resourceVersion handed out so far is too old: watches and exact lists from
// them get 410 Expired, continue tokens expire, and open streams are closed.
// Like an etcd compaction it consumes a resourceVersion itself, so even a
// client that had seen the newest event must relist.
func (c *Cluster) ExpireHistory() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rv++
	for _, st := range c.stores {
		st.hist.compactTo(c.rv)
		st.path.cache.compactTo(c.rv)
		st.snaps.clear()
	}
	c.dropAllLocked()
}

// SetAvailable makes the API server reachable (true) or refuse connections
// (false). While unavailable, LIST and WATCH fail with "connection refused"
// and open streams are closed; the cluster's own writes (Create, Update,
// the workload) keep working, as if only the informer's link were down.
func (c *Cluster) SetAvailable(up bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.available = up
	if !up {
		c.dropAllLocked()
	}
}

// Available reports whether the server accepts connections.
func (c *Cluster) Available() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.available
}

func (c *Cluster) dropAllLocked() {
	for _, st := range c.stores {
		for w := range st.watchers {
			c.closeLocked(w, &c.stats.watchesDropped)
		}
	}
}
