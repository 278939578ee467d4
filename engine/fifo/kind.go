package fifo

import (
	"github.com/informtop/informtop/agent/pipeline"
)

// Kind names a queue implementation: pipeline.QueueKind, the one
// queue-kind type of informtop, which reads and writes as text.
type Kind = pipeline.QueueKind

// The queue kinds.
const (
	// KindRealFIFO is client-go v0.37's default queue; the zero value.
	KindRealFIFO = pipeline.RealFIFO
	// KindDeltaFIFO is the classic queue of coalesced deltas per key.
	KindDeltaFIFO = pipeline.DeltaFIFO
)
