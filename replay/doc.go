// Package replay is the source.Source of a recording (package recording):
// each recorded informer is rebuilt as an engine informer whose
// ListerWatcher serves the recorded stream — the same pages, events,
// errors and gaps, at the recorded times, N× faster, or as fast as the
// reflector takes them — and whose simulated listeners take the recorded
// time for each callback, so a slow or stalled handler stalls again. It
// embeds local.Source, so pause, step, batch step and stalls work as on
// the demo.
//
// The reflector drives the replay as it drove the recording: each List
// call gets the next recorded List response, each Watch call the next
// recorded watch. A stream the server ended ends at the same moment, but
// for one that gave the reflector no event: the reflector relists after
// such a stream when it ended within a second, so the replay ends it on
// the same side of that second as the live one ended, whatever its speed.
// A stream the reflector stopped waits for the reflector to stop it
// again. Once the recording is used up, the last watch stays open and
// silent.
package replay
