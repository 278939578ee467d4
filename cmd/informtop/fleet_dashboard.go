package main

import (
	"context"

	"github.com/informtop/informtop/source/fleet"
)

// runFleetDashboard is the fleet's dashboard.
func runFleetDashboard(ctx context.Context, src *fleet.Source, o *options, agentToken string) error {
	return runDashboard(ctx, src, o)
}
