// Package demo runs informtop's teaching demo: the simulated API server of
// package cluster, a workload against it, one or more instrumented informers
// with named listeners of different speeds, and a scripted scenario that
// injects faults and tells the viewer what to watch.
//
// A *Demo is a tui.Source with tui.Controls: the dashboard reads its
// snapshots, events and caches, and its keys call the fault-injection
// methods (drop the watch, expire the history, stall a listener, …), which
// tests call directly as well.
//
// Everything a Demo starts belongs to Run: when Run's context ends it
// releases stalled listeners, stops the workload, the script and the
// informers, and returns only after every goroutine has ended.
package demo
