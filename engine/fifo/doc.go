// Package fifo holds informtop's two informer queues, DeltaFIFO (one row
// per key, deltas coalesced) and RealFIFO (every event its own item, in
// arrival order), re-implemented from client-go v0.37's behaviour and
// instrumented so their contents can be watched while they run.
//
// Both satisfy cache.Queue and are built from client-go's own option types.
// Each queue guards all its state with one mutex; Pop (and RealFIFO's
// PopBatch) expect a single consumer and may hold that mutex while the
// process function runs, so the process function must not call back into
// the queue. Reading the instrumentation (Stats, Deltas) takes the same
// mutex briefly and costs at most the rows asked for, never the queue's
// length. With a reserved identity and a metrics provider both queues feed
// client-go's informer metrics (queue depth, processing latency).
package fifo
