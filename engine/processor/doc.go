// Package processor is informtop's shared processor: it hands every
// notification to each registered listener through the listener's own
// unbounded ring-buffer backlog, and instruments each listener so a stalled
// handler is visible.
//
// Distributing never waits for a handler: a slow listener only grows its own
// backlog, and each listener's handler gets its notifications one at a time,
// in order, on the listener's goroutine. The processor's lock may be held
// while a listener's lock is taken, never the reverse.
package processor
