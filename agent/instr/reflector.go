package instr

import (
	"github.com/informtop/informtop/agent/pipeline"
)

// ReflectorStats is what the instrumented ListerWatcher saw of the
// reflector.
type ReflectorStats = pipeline.Reflector
