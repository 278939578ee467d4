//go:build tools

// Package prom only records, for go mod tidy, the main packages that build.sh
// builds; it is never compiled.
package prom

import (
	_ "github.com/prometheus/alertmanager/cmd/amtool"
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
