// Package attach is the source behind `informtop attach`: a source.Source
// that reads a debug agent (package agent) over HTTP, as agent/api
// describes it.
//
// # Data flow
//
// Run starts one poller. It GETs api.PathFrame every PollInterval with its
// own event cursor, keeps the latest snapshots, reasons and status, and
// appends the events to a local buffer (16,384 events). Pull never does
// I/O: it copies the latest frame and serves events from that buffer by
// the caller's cursor, so a dashboard tick costs microseconds whatever the
// network does, and any number of readers (the dashboard, --once) pull
// independently, as they would from a local source.
//
// Event sequence numbers are the agent's (shifted past the old ones if the
// agent restarts, so they never repeat). A frame's Missed counts the
// sequence numbers from the reader's cursor up to Next that it does not
// get: those the agent's ring overwrote before the poller asked (the
// agent's own Missed) and those the local buffer overwrote before the
// reader asked. Events are neither lost nor repeated otherwise.
//
// # Status
//
// Before the first frame the status is Connecting ("connecting to
// <addr>"). A failed request keeps the last frame and sets Disconnected
// (Connecting if nothing was ever received) with the error and the time of
// the next attempt; attempts back off from 1s, doubling to 30s, and the
// first success resets them. A response without api.VersionHeader, or
// with another version, is Incompatible with a sentence naming both
// versions; 401 Unauthorized is a sentence naming --token.
//
// # Store
//
// Store returns a read-only StoreReader whose every call is one GET to the
// agent's store endpoints, bounded by Options.Timeout; errors read as empty
// results. The source implements none of the capability interfaces, so
// the dashboard hides the keys that need a local process.
package attach
