package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/polling"
	"github.com/informtop/informtop/internal/safeurl"
)

const (
	// DefaultRefresh is how often the fleet is queried: Prometheus scrapes
	// every 15-60 s, so asking it ten times a second, as the dashboard
	// redraws, would only load it.
	DefaultRefresh = 5 * time.Second
	// DefaultTimeout bounds one refresh, all its queries together.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxProcesses bounds the processes kept: 1,000 controllers of
	// 20 informers and 3 listeners each are 60,000 listeners in memory,
	// tens of MB.
	DefaultMaxProcesses = 1000
	// DefaultMaxSeries bounds the series one query may return (Prometheus
	// 3's limit parameter; older servers ignore it).
	DefaultMaxSeries = 200_000
	// DefaultMaxAnswerBytes bounds the bytes of one answer, as read (after
	// gzip): 200,000 series of a dozen labels are about 100 MiB of JSON.
	// Answers are decoded as they are read, so this bounds reading time;
	// memory is bounded by maxSeriesBytes.
	DefaultMaxAnswerBytes = 128 << 20
	// DefaultAgentLabel is the target label holding the agent's address:
	// the agent serves /metrics and its API on one address.
	DefaultAgentLabel = "instance"
	// DefaultClusterLabel is the target label naming a process's cluster,
	// as a Prometheus' external_labels or a Thanos' replica labels usually
	// have it.
	DefaultClusterLabel = "cluster"
	// lookback is how long after its last informtop series a target that
	// Prometheus can no longer scrape is still listed, as down.
	lookback = "1h"

	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// Options configure a Source.
type Options struct {
	// URL is Prometheus' (or Thanos', Mimir's) HTTP API address, with its
	// path prefix if it has one: http://prometheus:9090.
	URL string
	// Selector is PromQL label matchers added to every query:
	// `namespace="shop",cluster=~"eu.*"`.
	Selector string
	// Auth is how the client logs in and which certificates it trusts:
	// bearer token, basic auth, TLS, each from a file of Secrets.
	Auth Auth
	// Secrets are the files Auth names, read within their budgets on
	// every query.
	Secrets SecretFiles
	// AgentLabel is the target label holding the address attach reaches a
	// process's agent at; DefaultAgentLabel when "".
	AgentLabel string
	// ClusterLabel is the target label naming a process's cluster, part
	// of its identity (source.Process.Cluster); DefaultClusterLabel when "".
	ClusterLabel string
	// Refresh is the time between queries; DefaultRefresh when 0.
	Refresh time.Duration
	// Timeout bounds one refresh; DefaultTimeout when 0.
	Timeout time.Duration
	// MaxProcesses and MaxSeries bound memory, MaxAnswerBytes the bytes
	// read of one answer; the defaults when 0.
	MaxProcesses   int
	MaxSeries      int
	MaxAnswerBytes int64
}

// Source lists the controller processes, informers and listeners a
// Prometheus knows from informtop's agents. It implements source.Source.
// Every method is safe for concurrent use.
//
// Locking: mu guards procs, snaps, status, answered and refused. Run's
// goroutine is the only writer; Pull copies under mu and does no I/O.
type Source struct {
	url      string   // as given, without a trailing slash
	selector string   // validated matchers, "" for none
	base     *url.URL // url, parsed
	http     *http.Client
	opts     Options
	lo, hi   time.Duration
	started  atomic.Bool
	everOK   bool // a refresh succeeded; Run's goroutine only
	failures int  // consecutive failed refreshes; Run's goroutine only

	mu       sync.Mutex
	procs    []source.Process
	snaps    []source.Informer
	taken    time.Time
	status   source.Status
	answered bool  // the first refresh succeeded
	refused  error // why the first contact failed for good, if it did
}

var _ source.Source = (*Source)(nil)

// New checks the options and returns a Source; nothing is contacted
// before Run.
func New(opts Options) (*Source, error) {
	u, err := parseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	sel, err := parseSelector(opts.Selector)
	if err != nil {
		return nil, err
	}
	if opts.Refresh < 0 || opts.Timeout < 0 || opts.MaxProcesses < 0 || opts.MaxSeries < 0 || opts.MaxAnswerBytes < 0 {
		return nil, errors.New("the fleet's refresh, timeout and limits must not be negative")
	}
	opts.Refresh = or(opts.Refresh, DefaultRefresh)
	opts.Timeout = or(opts.Timeout, DefaultTimeout)
	opts.MaxProcesses = or(opts.MaxProcesses, DefaultMaxProcesses)
	opts.MaxSeries = or(opts.MaxSeries, DefaultMaxSeries)
	opts.MaxAnswerBytes = or(opts.MaxAnswerBytes, DefaultMaxAnswerBytes)
	opts.AgentLabel = or(strings.TrimSpace(opts.AgentLabel), DefaultAgentLabel)
	if _, _, err := nextMatcher(opts.AgentLabel + `=""`); err != nil {
		return nil, fmt.Errorf("--agent-label %q is not a label name: use letters, digits and _, e.g. instance", opts.AgentLabel)
	}
	opts.ClusterLabel = or(strings.TrimSpace(opts.ClusterLabel), DefaultClusterLabel)
	if _, _, err := nextMatcher(opts.ClusterLabel + `=""`); err != nil || agentLabels[opts.ClusterLabel] {
		return nil, fmt.Errorf("--cluster-label %q is not a target label name: use letters, digits and _, other than the agent's own labels (name, listener…), e.g. cluster", opts.ClusterLabel)
	}
	hc, err := newHTTPClient(opts.Auth, opts.Secrets)
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("%q is not a Prometheus URL: %v", opts.URL, err)
	}
	s := &Source{url: u, base: base, selector: sel, http: hc, opts: opts, lo: minBackoff, hi: maxBackoff}
	s.status = source.Status{State: source.Connecting, Message: "asking Prometheus at " + u + " for informtop's series"}
	return s, nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// parseURL checks --prometheus: an http(s) URL with a host.
func parseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	const want = "give Prometheus' HTTP address, e.g. http://prometheus:9090 (with its path prefix if it has one)"
	if raw == "" {
		return "", errors.New("no Prometheus URL: " + want)
	}
	shown := safeurl.Redact(raw) // a password in it is never repeated
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URL: %s", shown, want)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: Prometheus speaks http or https: %s", shown, want)
	case u.Hostname() == "":
		return "", fmt.Errorf("%q names no host: %s", shown, want)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("%q: give the URL without user, query or fragment (credentials go in --bearer-token-file or --basic-auth-password-file): %s", shown, want)
	}
	return strings.TrimRight(raw, "/"), nil
}

// Kind implements source.Source.
func (s *Source) Kind() string { return "fleet" }

// Title implements source.Source: the Prometheus, and the selector.
func (s *Source) Title() string {
	if s.selector == "" {
		return s.url
	}
	return s.url + " {" + s.selector + "}"
}

// Store implements source.Source: Prometheus holds figures, not caches.
func (s *Source) Store(string) source.StoreReader { return nil }

// Controls implements source.Source: a fleet is only shown.
func (s *Source) Controls() source.Controls { return source.Controls{} }

// Pull implements source.Source. It does no I/O: it copies the latest
// refresh. There are no events: Prometheus keeps figures, not them.
func (s *Source) Pull(cursor uint64, _ int) source.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := source.Frame{
		Snapshots: source.CloneInformers(s.snaps),
		Processes: source.CloneProcesses(s.procs),
		Status:    s.status,
		Taken:     s.taken,
		Next:      cursor,
	}
	if f.Processes == nil {
		f.Processes = []source.Process{}
	}
	if s.answered {
		f.Notes = []string{fmt.Sprintf("%d controller processes, %d informers, from Prometheus at %s (read-only; figures as of the last scrape)", len(s.procs), len(s.snaps), s.url)}
	}
	if f.Taken.IsZero() {
		f.Taken = time.Now()
	}
	return f
}

// Run queries Prometheus every Refresh until ctx is done, and returns once
// it has stopped. A Source runs once; another call returns at once.
func (s *Source) Run(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	defer s.http.CloseIdleConnections()
	polling.Run(ctx, s.refresh)
}

// refresh asks every query once and returns the wait before the next.
func (s *Source) refresh(ctx context.Context) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	at := time.Now()
	b := newBuild(at, s.opts.AgentLabel, s.opts.ClusterLabel)
	cut, err := s.queryAll(ctx, b, at)
	if ctx.Err() != nil && err != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return s.opts.Refresh // stopping; the answer is moot
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", s.opts.Timeout)
		}
		return s.failed(err)
	}
	procs, snaps, total := b.finish(s.opts.MaxProcesses)
	source.RankProcesses(procs, snaps, at, source.StallAfter)
	st := source.Status{State: source.Live}
	var notes []string
	if total > len(procs) {
		notes = append(notes, cutNote(len(procs), total))
	}
	if cut != "" {
		notes = append(notes, cut)
	}
	if total == 0 {
		notes = append(notes, s.noSeries())
	}
	st.Message = strings.Join(notes, "; ")
	s.failures, s.everOK = 0, true
	s.mu.Lock()
	s.procs, s.snaps, s.taken, s.status, s.answered = procs, snaps, at, st, true
	s.mu.Unlock()
	return s.opts.Refresh
}

// noSeries is the sentence for a Prometheus without informtop's series.
func (s *Source) noSeries() string {
	if s.selector != "" {
		return fmt.Sprintf("Prometheus at %s has no informtop_* series matching {%s}; is the agent's /metrics scraped, and does --selector match its target's labels?", s.url, s.selector)
	}
	return fmt.Sprintf("Prometheus at %s has no informtop_* series; is the agent's /metrics scraped?", s.url)
}

// query asks for the targets and every family, each one query evaluated
// at at, into b. cut is a sentence when a query hit MaxSeries.
func (s *Source) queryAll(ctx context.Context, b *build, at time.Time) (cut string, err error) {
	sel := s.selector
	// The targets: up for every one that exported informtop's series in
	// the last hour, so a controller Prometheus cannot scrape any more is
	// listed as down rather than forgotten.
	upQuery := fmt.Sprintf("%s and ignoring(name, group, version, resource) last_over_time(%s[%s])",
		selectorQuery("up", sel), selectorQuery("informtop_informer_synced", sel), lookback)
	n, err := s.query(ctx, "up", upQuery, at, b.addUp)
	if err != nil {
		return "", err
	}
	// The controllers without the agent that export client-go's
	// workqueue metrics (kube-controller-manager, most operators):
	// listed, and attached to through their goroutine dumps.
	pprofQuery := fmt.Sprintf("(%s and ignoring(name) last_over_time(%s[%s])) unless ignoring(name, group, version, resource) last_over_time(%s[%s])",
		selectorQuery("up", sel), selectorQuery("workqueue_depth", sel), lookback, selectorQuery("informtop_informer_synced", sel), lookback)
	np, err := s.query(ctx, "up", pprofQuery, at, b.addPprof)
	if err != nil {
		return "", err
	}
	n = max(n, np)
	b.admit(s.opts.MaxProcesses)
	var cutFamilies []string
	if n >= s.opts.MaxSeries {
		cutFamilies = append(cutFamilies, "up")
	}
	for _, f := range families {
		n, err := s.query(ctx, f.metric, selectorQuery(f.metric, sel), at, func(m labels, v float64) { b.add(f, m, v) })
		if err != nil {
			return "", err
		}
		if n >= s.opts.MaxSeries {
			cutFamilies = append(cutFamilies, f.metric)
		}
	}
	if len(cutFamilies) > 0 {
		cut = fmt.Sprintf("%s returned %d series, the most asked for, so some are missing: narrow --selector", strings.Join(cutFamilies, ", "), s.opts.MaxSeries)
	}
	return cut, nil
}

// selectorQuery is metric{sel}.
func selectorQuery(metric, sel string) string {
	if sel == "" {
		return metric
	}
	return metric + "{" + sel + "}"
}

// failed records a failed refresh and returns the backoff before the next.
func (s *Source) failed(err error) time.Duration {
	s.failures++
	wait := source.Backoff(s.failures, s.lo, s.hi)
	sentence, final := explain(s.url, err)
	st := source.Status{State: source.Disconnected, Message: sentence, LastError: err.Error(), NextRetry: time.Now().Add(wait)}
	if !s.everOK {
		st.State = source.Connecting
	}
	s.mu.Lock()
	s.status = st
	if !s.everOK && final {
		s.refused = &refusedError{sentence}
	}
	s.mu.Unlock()
	return wait
}

// WaitSynced implements source.Source: it returns once Prometheus has
// answered the first refresh. A first answer that waiting will not mend
// (nothing listens, credentials refused, no informtop series at all) is
// an error wrapping source.ErrUnreachable. It needs Run to be running.
func (s *Source) WaitSynced(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		answered, refused, st, n := s.answered, s.refused, s.status, len(s.procs)
		s.mu.Unlock()
		switch {
		case answered && n == 0:
			return &refusedError{s.noSeries()}
		case answered:
			return nil
		case refused != nil:
			return refused
		}
		select {
		case <-tick.C:
			continue
		case <-ctx.Done():
		}
		msg := "no answer from Prometheus at " + s.url + " yet"
		if st.Message != "" && st.State != source.Live {
			msg += " (" + st.Message + ")"
		}
		return fmt.Errorf("%s: %w", msg, ctx.Err())
	}
}

// URL is the Prometheus queried, as given without a trailing slash.
func (s *Source) URL() string { return s.url }

// Selector is the matchers added to every query, as checked; "" for none.
func (s *Source) Selector() string { return s.selector }
