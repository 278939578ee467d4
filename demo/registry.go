package demo

import (
	"time"

	"github.com/informtop/informtop/demo/cluster"
)

// Cluster returns the simulated API server.
func (d *Demo) Cluster() *cluster.Cluster { return d.cluster }

// Scenario returns the name of the scenario being run.
func (d *Demo) Scenario() string { return d.cfg.Scenario }

func (d *Demo) setNote(lines []string) {
	d.mu.Lock()
	d.notes = lines
	d.mu.Unlock()
}

// startTime is when Run started; zero before.
func (d *Demo) startTime() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.startedAt
}
