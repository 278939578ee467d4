// Package sourcetest provides fakes of package source for tests of
// whatever reads a source (the dashboard, the reports), as
// controller-runtime ships informertest. It imports no UI and not package
// testing.
//
//   - Fake is a source.Source that replays fixed frames of snapshots
//     (Advance moves to the next, staying on the last), fixed events
//     (honouring Pull's cursor and maximum), notes, a Status and a
//     controller's workqueues.
//   - Store is an immutable cache: keys, objects, labels, creation times
//     and indexes, read as source.InformerStore reads an engine informer.
//   - Controller records every control call in order; its step result,
//     failure, pause state, stall states, rate and queued deltas are
//     settable.
//
// The dashboard decides its keys by type assertion on the source, so what
// a fake can do is chosen by its type:
//
//   - *Fake has no capability: read-only, like an attached process or a
//     replay.
//   - *Cluster adds Processing, Stalling, QueueReader, QueuePager and
//     ListenerReader, like informers running in informtop over a real
//     cluster.
//   - *Demo adds every capability, like the embedded demo.
//
// Another set is a struct embedding *Fake and exactly the capability
// interfaces it should offer, each set to one *Controller, with ReportPaused
// so its frames carry the pause state:
//
//	type pausable struct {
//		*sourcetest.Fake
//		source.Processing
//	}
//
//	ctl := &sourcetest.Controller{}
//	f := sourcetest.New(sourcetest.Config{Kind: "demo", Frames: frames})
//	f.ReportPaused(ctl)
//	src := pausable{f, ctl}
//
// Every type is safe for concurrent use: the dashboard calls sources from
// command goroutines.
package sourcetest
