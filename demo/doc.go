// Package demo runs informtop's teaching demo: the simulated API server of
// package cluster, a workload against it, one or more instrumented informers
// with named listeners of different speeds, and a scripted scenario that
// injects faults and tells the viewer what to watch.
//
// A *Demo embeds a local.Source (the informers, their shared event ring,
// the simulated listeners, pause/step/resync/stall) and adds what only a
// simulated server can do: source.Faults (drop the watch, expire the
// history) and source.Workload (the churn rate), plus the scenario's notes.
// Tests call the same methods the dashboard's keys do.
//
// A scenario's script never gets ahead of the pipeline: a step waits for
// the state its note describes (until, then) before showing the note, and
// every scenario's test checks each note against the state when it
// appeared. The script never overrides the user: while you have paused
// processing, its pause and resume steps wait for you.
//
// Everything a Demo starts belongs to Run: when Run's context ends it
// releases stalled listeners, stops the workload, the script and the
// informers, and returns only after every goroutine has ended.
package demo
