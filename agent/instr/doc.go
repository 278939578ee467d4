// Package instr holds the instrumentation primitives shared by every stage
// of the engine: typed events and the bounded, lossy ring that carries them.
//
// Invariant: instrumentation never blocks the pipeline. Emitting takes one
// short mutex and never waits for a reader; when the ring is full the oldest
// event is overwritten and counted once as dropped. Each reader keeps its
// own cursor and is told what it alone missed. A nil *Ring (Sink) is valid
// and discards everything, so stages can run uninstrumented.
package instr
