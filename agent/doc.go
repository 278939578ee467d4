// Package agent is informtop's debug endpoint inside a user's controller:
// it serves the snapshots, events and caches of the engine informers it is
// given (or of any source.Source: NewSourceHandler), and their Prometheus
// metrics, over HTTP as package agent/api describes, for `informtop
// attach` and for scrapers. It imports no UI.
//
// Use NewHandler to mount the endpoint on a server you already run, or
// Serve to run a server of its own until a context ends. Informers built
// later than the handler (controller-runtime builds its cache's informers
// on first use, after its metrics server and ExtraHandlers are fixed) go
// in a Set given as Options.Informers: the handler serves them from the
// moment they are added.
//
// A controller's workqueues, the stage after the handlers, are seen
// through NewWorkqueueMetrics: give it to the queue as its
// workqueue.MetricsProvider and to Options.Workqueues.
//
// # Serving any source
//
// The handler serves a source.Source and reads only through it: a frame
// is api.FrameOf the source's Pull, the report is built from a pull, the
// store endpoints read Store, a cut is Controls().Cuts' and /metrics is
// computed from the pulled model (source.Informer). NewHandler and Set
// serve a source of their engine informers: a view of the fixed informers
// and the set's growing list, whose events are read from their one shared
// ring or merged by an instr.Merger, and which adds to the model what only
// the engine knows: each informer's client-go identity for metric labels
// (after Options.Resources) and the resourceVersion it last received, so
// a shared cut is never older than what was queued. NewSourceHandler
// serves any other source (a recording, a fake in a test) with
// the same paths, security, sharing and metric names; its labels come
// from Options.Resources, else the informer's Resource. package attach is
// the inverse: attached to an agent, it is a source.Source again.
//
// # Security model
//
//   - Read-only: every endpoint is GET (or HEAD); any other method gets 405.
//     Nothing can pause, step or change an informer through the agent.
//   - Serve listens on 127.0.0.1 unless told otherwise ("" and ":PORT"
//     mean 127.0.0.1), and refuses any address that is not loopback unless
//     Options.Token or Options.TokenFile is set (or Options.TLSConfig
//     verifies client certificates).
//   - With a token, every request must carry "Authorization: Bearer
//     <token>"; the comparison takes constant time (both sides are hashed
//     first, so neither content nor length leaks) and is the first thing
//     done with a request: one without a valid token is refused before it
//     is routed or spends anything of the rate bounds. Options.TokenFile
//     keeps the token out of flags and the environment (ps shows flags to
//     every user of the machine). Others get 401, and refusals (401, 405)
//     are fixed sentences without the version header: a caller without
//     the token learns nothing of the agent.
//   - Two scopes: Options.Token (the attach token) reads everything;
//     Options.MetricsToken, for a scraper, reads /metrics only and gets
//     403 elsewhere, so the secret a Prometheus server holds does not open
//     the caches. Options.MetricsWithoutToken serves /metrics to anyone
//     instead. With no token configured nothing is checked: for loopback,
//     or behind a server that authenticates for the agent
//     (controller-runtime's filters.WithAuthenticationAndAuthorization).
//   - Scrapers cannot make the controller pay for their number: answers
//     whose cost grows with the caches or the registry (cuts, entries,
//     objects, indexes; frames and reports; metrics) are computed one at
//     a time per kind, outside the answer's writing, so a slow reader
//     holds nothing; identical requests share one answer while it is
//     computed and a little after (package api says how long: a cache's
//     answer only while the informer has received nothing new); a request
//     that waits 2 s for its turn gets 503 and Retry-After. The agent
//     answers a bounded number of requests a second, in two budgets (the
//     attach paths, /metrics) that neither clients without a token nor a
//     flood of the other kind can spend. Answers do not depend on who
//     asks (a caller reaches an answer only where its scope reads all of
//     it), and a caller without the token is refused before anything
//     shared is looked at. None of this runs or holds memory while nobody
//     asks.
//   - Only the informers given (or added to Options.Informers) are
//     reachable; Secrets' data is replaced by its size in every answer
//     (package redact), and events carry keys, never objects.
//   - Reading is lossy and never blocks an informer: events come from the
//     engine's bounded event ring, a slow client misses events (Frame.Missed)
//     instead of slowing anything, and metrics are read from the source's
//     model (engine snapshots, for NewHandler) at scrape time.
package agent
