// Package pprof is the source behind `informtop attach --pprof`: a
// source.Source that reads a Go controller which serves net/http/pprof
// and Prometheus metrics but no informtop agent (kube-controller-manager,
// a vendor's operator), so that nothing in it has to change.
//
// # What it reads
//
// Every DumpInterval (5 s by default, never more than one request at a
// time) it GETs /debug/pprof/goroutine?debug=2 and parses the dump
// (dump.go). Goroutines running client-go's (*processorListener).run are
// the listeners; the goroutine that started them, a sharedProcessor.run,
// groups them by informer (classify.go). A listener inside a callback has
// the handler's method above run's frames: OnAdd, OnUpdate or OnDelete of
// ResourceEventHandlerFuncs (then the function it holds) or of the
// handler's own type; the handler is named as client-go's nameForHandler
// names it, and the first frame outside the runtime, the standard
// library, client-go, apimachinery, k8s.io/utils, klog and
// controller-runtime is the code to read. Beside each dump it GETs
// /metrics for the workqueues (metrics.go).
//
// # How long
//
// A dump is one instant. A call is known to have lasted at least as long
// as consecutive dumps found the same listener inside the same call (the
// same callback and frame), or the runtime's own "N minutes" of waiting
// when that is longer (track.go). The source therefore states durations
// as lower bounds: informers carry source.ImplementationPprof, which the
// report and the dashboard read as "≥".
//
// # What it cannot know
//
// Keys, backlogs, queue contents, caches, reflectors and whether an
// informer has synced are not in a goroutine dump; the model's fields for
// them stay zero, and the report writes them as null with the reason
// (report's unknown fields for source.ImplementationPprof).
package pprof
