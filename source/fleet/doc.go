// Package fleet is the source behind `informtop fleet`: a source.Source
// over the PromQL API of a Prometheus (or Thanos, Mimir) that scrapes
// informtop agents, listing every controller process, informer and
// listener it knows, worst first.
//
// # Data flow
//
// Run refreshes every Options.Refresh (5 s: Prometheus itself scrapes far
// less often than the dashboard redraws). A refresh is one instant query
// for the targets (up, for every target that exported informtop's series
// in the last hour, so a controller that stopped answering is listed as
// down) and one per informtop series family, each with Options.Selector's
// matchers, all evaluated at one time. No answer holds more than one
// family, and each is capped (Options.MaxSeries, Prometheus' limit
// parameter); processes are capped too (Options.MaxProcesses), and the
// status says when either cut. Answers are read one series at a time
// (decode.go) as they stream in, within byte budgets. Pull copies the last
// refresh and never does I/O.
//
// A process is one scrape target: every label of a series that is not
// the agent's own (name, group, version, resource, listener, type,
// frame). Its informers are named "process · informer", the process
// being namespace/pod when the target has those labels, else
// job · instance. Frame.Processes lists them worst first
// (source.RankProcesses).
//
// # What the series cannot say
//
// Prometheus has figures, not events or caches: Pull has no events and
// Store returns nil. A handler in a callback is known by how long, not by
// which callback (InCallback is source.CallbackUnknown) or key; the
// frame a stalled call was found in comes back from the series' frame
// label. The watch has no series, so it counts as open and the agent's
// silent flag says when it delivers nothing. Pending is read as the lower
// bound it is for client-go's own informers. Everything is as of the last
// scrape, up to a scrape interval old.
//
// # Status
//
// Connecting until the first refresh answers, then Live (with a sentence
// when something was cut or no informtop series matched), Disconnected
// with a sentence and the next attempt when a refresh fails; attempts
// back off from 1 s to 30 s. A first refresh that fails in a way retrying
// will not mend (connection refused, 401, 403, 404, a certificate) makes
// WaitSynced return at once with an error wrapping source.ErrUnreachable.
package fleet
