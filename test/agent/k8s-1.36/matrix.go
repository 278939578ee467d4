// Package matrix pins client-go v0.36.0 and controller-runtime v0.24.0, so that
// the agent's own tests run against them from this directory:
//
//	go test github.com/informtop/informtop/agent/...
//
// (a dependency's tests run with the requiring module's versions). The
// imports below keep the agent's packages, and what their tests need, in
// this module's go.sum.
package matrix

import (
	_ "github.com/informtop/informtop/agent"
	_ "github.com/informtop/informtop/agent/serve/servetest"
	_ "github.com/informtop/informtop/agent/shared/benchlw"
	_ "github.com/informtop/informtop/agent/shared/fill"
	_ "github.com/informtop/informtop/examples"
	_ "go.uber.org/goleak"
	_ "k8s.io/client-go/tools/cache/testing"
	_ "k8s.io/utils/clock/testing"
	_ "sigs.k8s.io/controller-runtime"
	_ "sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)
