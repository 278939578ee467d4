package processor

import (
	"github.com/informtop/informtop/agent/pipeline"
)

// ListenerStats is a cheap copy of one listener's instrumentation, in the
// model's terms (pipeline.Listener); the engine leaves PendingEstimated
// and Frame zero.
type ListenerStats = pipeline.Listener
