package instr

import (
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

// CallReading is what a listener's instrumentation copies, under its lock,
// of its handler's calls: the call in progress, if any, and a window of
// recent call durations. Fill names and rounds it into the model after the
// lock is released, so the engine's listeners and the agent's probes (over
// client-go's informer) report a call the same way.
type CallReading struct {
	// Callback is pipeline.CallbackAdd, CallbackUpdate or CallbackDelete
	// while a call runs; "" when none does.
	Callback string
	// Since is when the call in progress started; Object what it was handed.
	Since  time.Time
	Object any
	// Window is the durations of recent calls, in any order.
	Window []time.Duration
}

// Fill sets l's call figures: the call in progress (InCallback, its key
// and start) and the latency percentiles. It sets nothing else.
func (r CallReading) Fill(l *pipeline.Listener) {
	if r.Callback != "" {
		l.InCallback, l.InCallbackSince, l.InCallbackKey = r.Callback, r.Since, KeyOf(r.Object)
	}
	l.LatencyP50, l.LatencyP99 = Percentiles(r.Window)
}
