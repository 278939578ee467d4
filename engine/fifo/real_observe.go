package fifo

import (
	"time"

	utiltrace "k8s.io/utils/trace"
)

// traceIfSlow starts a trace of processing n popped items when the queue
// behind them is deeper than 10 items, which points at slow handlers
// holding up the queue. Call the returned func when processing is done; it
// logs if processing took longer than 100ms per item, at most 1s.
func (f *RealFIFO) traceIfSlow(key string, n int) func() {
	depth := f.items.len()
	if depth <= 10 {
		return func() {}
	}
	fields := []utiltrace.Field{
		{Key: "ID", Value: key},
		{Key: "Depth", Value: depth},
		{Key: "Reason", Value: "slow event handlers blocking the queue"},
	}
	if n > 1 {
		fields = append(fields, utiltrace.Field{Key: "BatchSize", Value: n})
	}
	if name := f.identifier.Name(); name != "" {
		fields = append(fields, utiltrace.Field{Key: "Name", Value: name})
	}
	if gvr := f.identifier.GroupVersionResource(); !gvr.Empty() {
		fields = append(fields, utiltrace.Field{Key: "Resource", Value: gvr})
	}
	tr := utiltrace.New("RealFIFO process", fields...)
	limit := min(time.Duration(n)*100*time.Millisecond, time.Second)
	return func() { tr.LogIfLong(limit) }
}
