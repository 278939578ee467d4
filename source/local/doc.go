// Package local is the source.Source of informers running in this
// process: a set of named engine informers sharing one event ring, the
// simulated listeners registered on them (each with a per-event cost and a
// stall switch), and every control a local pipeline allows (pause, step,
// resync, stall). The demo embeds it and adds what only a simulated server
// can do; the kube source embeds it over a real cluster's list and watch.
package local
