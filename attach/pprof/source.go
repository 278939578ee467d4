package pprof

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/polling"
	"github.com/informtop/informtop/internal/safeurl"
)

const (
	// DefaultDumpInterval is the time between goroutine dumps. A dump
	// stops the target's world for as long as it takes to walk every
	// stack (docs/attach-pprof.md has the cost), so it is seconds, not
	// the agent's tenth of a second.
	DefaultDumpInterval = 5 * time.Second
	// MinDumpInterval is the shortest --dump-interval accepted.
	MinDumpInterval = time.Second
	// DefaultTimeout bounds each request.
	DefaultTimeout = 10 * time.Second

	// PathDump and PathMetrics are what the source reads, below the base
	// URL; PathIndex is what Check asks for (pprof's index, which stops
	// nothing).
	PathDump    = "/debug/pprof/goroutine?debug=2"
	PathIndex   = "/debug/pprof/"
	PathMetrics = "/metrics"

	// maxDump bounds a dump read: 50,000 goroutines of client-go depth
	// write about 100 MiB.
	maxDump    = 256 << 20
	maxMetrics = 64 << 20

	minBackoff = time.Second
	maxBackoff = 30 * time.Second
	eventsKept = 4096
)

// NoAgent is what the dashboard and the report say where a figure needs
// the agent: what is missing and the one line that brings it.
const NoAgent = "not available without the agent: add one line (docs/agent.md)"

// Options configure a Source.
type Options struct {
	// Token is sent as "Authorization: Bearer <token>" when not empty.
	Token string
	// HTTPClient makes the requests; a client of its own when nil. The
	// API server's tunnel's client carries the kubeconfig's credentials.
	HTTPClient *http.Client
	// Timeout bounds each request; DefaultTimeout when 0.
	Timeout time.Duration
	// DumpInterval is the time between goroutine dumps;
	// DefaultDumpInterval when 0, at least MinDumpInterval.
	DumpInterval time.Duration
	// Route names the target when it is reached other than by its
	// address (attach/tunnel's port-forward).
	Route Route
}

// Route is a way to the target other than its address.
type Route interface {
	// Describe names where the target is now, for the header and sentences.
	Describe() string
}

// Source reads a process's goroutine dumps and metrics. It implements
// source.Source; every method is safe for concurrent use. Invariant: at
// most one request to the target is in flight (Run's single poller, or
// Check before Run), and dumps are DumpInterval apart from start to start.
//
// Locking: mu guards every field below it; the tracker, failures and
// everReceived belong to Run's goroutine alone; the rest is set by New
// and read-only after.
type Source struct {
	addr    string
	base    string
	token   string
	route   Route
	client  *http.Client
	timeout time.Duration
	every   time.Duration
	lo, hi  time.Duration

	started atomic.Bool
	track   *tracker
	// Poller state, touched only by Run's goroutine.
	failures     int
	everReceived bool

	mu      sync.Mutex
	have    bool
	dumps   int  // dumps read
	inCall  bool // the newest dump found a listener inside a call
	snaps   []source.Informer
	queues  []source.Workqueue
	status  source.Status
	notes   []string
	metrics string // why the workqueues are missing, "" when read
	taken   time.Time
	events  []source.Event // the newest eventsKept, oldest first
	stats   source.RingStats
	refused error // why the first contact cannot succeed, nil otherwise
}

var _ source.Source = (*Source)(nil)

// New returns a Source for the process whose pprof and metrics handlers
// are under base, an http(s) URL without a trailing slash ("https://127.0.0.1:10257").
// addr is what the user typed, for sentences. Nothing is contacted before
// Check or Run.
func New(addr, base string, opts Options) (*Source, error) {
	if opts.DumpInterval != 0 && opts.DumpInterval < MinDumpInterval {
		return nil, fmt.Errorf("--dump-interval %s is too short: each goroutine dump stops the target for a while (docs/attach-pprof.md), so take one at most every %s", opts.DumpInterval, MinDumpInterval)
	}
	if opts.Timeout < 0 {
		return nil, errors.New("the attach timeout must not be negative")
	}
	s := &Source{
		addr: addr, base: strings.TrimRight(base, "/"), token: opts.Token, route: opts.Route,
		timeout: or(opts.Timeout, DefaultTimeout), every: or(opts.DumpInterval, DefaultDumpInterval),
		lo: minBackoff, hi: maxBackoff, track: newTracker(),
	}
	if opts.HTTPClient == nil {
		s.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	} else {
		c := *opts.HTTPClient
		s.client = &c
	}
	// The token must not follow a redirect to another origin.
	s.client.CheckRedirect = safeurl.SameOrigin
	s.status = source.Status{State: source.Connecting, Message: "connecting to " + s.where()}
	return s, nil
}

func or(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func (s *Source) where() string {
	if s.route != nil {
		return s.route.Describe()
	}
	return s.addr
}

// Kind implements source.Source.
func (s *Source) Kind() string { return "attach" }

// Title implements source.Source.
func (s *Source) Title() string { return s.where() + " · pprof" }

// ShortTitle is the route's short name (the pod), or "" for an address.
func (s *Source) ShortTitle() string {
	if r, ok := s.route.(interface{ Pod() string }); ok {
		return r.Pod()
	}
	return ""
}

// DumpInterval is the time between dumps.
func (s *Source) DumpInterval() time.Duration { return s.every }

// Store implements source.Source: a goroutine dump holds no cache.
func (s *Source) Store(string) source.StoreReader { return nil }

// Controls implements source.Source: nothing but showing.
func (s *Source) Controls() source.Controls { return source.Controls{} }

// Pull implements source.Source; it does no I/O.
func (s *Source) Pull(cursor uint64, maxEvents int) source.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := source.Frame{
		Snapshots:  source.CloneInformers(s.snaps),
		Workqueues: append([]source.Workqueue(nil), s.queues...),
		Status:     s.status,
		EventStats: s.stats,
		Taken:      s.taken,
	}
	if s.have {
		f.Notes = append([]string{fmt.Sprintf("attached to %s through its goroutine dumps, every %s (read-only, no agent)", s.where(), s.every),
			"keys, backlogs, queues and caches: " + NoAgent}, s.notes...)
		if s.metrics != "" {
			f.Notes = append(f.Notes, s.metrics)
		}
	}
	if f.Taken.IsZero() {
		f.Taken = time.Now()
	}
	f.Events, f.Next, f.Missed = s.since(cursor, maxEvents)
	return f
}

// since serves events with Seq >= cursor; mu held.
func (s *Source) since(cursor uint64, maxEvents int) ([]source.Event, uint64, uint64) {
	next := s.stats.Emitted + 1
	if len(s.events) == 0 {
		return nil, next, 0
	}
	oldest := s.events[0].Seq
	if cursor == 0 {
		cursor = oldest
	}
	var missed uint64
	if cursor < oldest {
		missed, cursor = oldest-cursor, oldest
	}
	if cursor >= next {
		return nil, next, missed
	}
	out := s.events[cursor-oldest:]
	if maxEvents > 0 && len(out) > maxEvents {
		out = out[:maxEvents]
	}
	out = append([]source.Event(nil), out...)
	if len(out) > 0 {
		next = out[len(out)-1].Seq + 1
	}
	return out, next, missed
}

// WaitSynced implements source.Source: it returns once a dump was read
// (a dump shows no HasSynced; see the package doc), or a second one when
// the first found a handler inside a call, so that a report says how
// long it has been there; or the reason the target cannot be read,
// wrapping source.ErrUnreachable.
func (s *Source) WaitSynced(ctx context.Context) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		have, refused, st := s.have && (s.dumps >= 2 || !s.inCall), s.refused, s.status
		s.mu.Unlock()
		switch {
		case have:
			return nil
		case refused != nil:
			return refused
		}
		select {
		case <-ctx.Done():
			why := st.LastError
			if why == "" {
				why = "no dump read yet"
			}
			return fmt.Errorf("no goroutine dump from %s: %s", s.where(), why)
		case <-t.C:
		}
	}
}

// Run takes a dump every DumpInterval until ctx is done; one request at
// a time, so a slow target is never asked twice at once. A Source runs
// once.
func (s *Source) Run(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	defer s.client.CloseIdleConnections()
	polling.Run(ctx, s.poll)
}

// poll reads one dump and the metrics, and returns the wait before the
// next: DumpInterval from the start of this one, or a backoff.
func (s *Source) poll(ctx context.Context) time.Duration {
	start := time.Now()
	raw, err := s.get(ctx, PathDump, maxDump)
	var gs []Goroutine
	if err == nil {
		gs, err = ParseDump(strings.NewReader(raw))
	}
	if ctx.Err() != nil {
		return s.every
	}
	if err != nil {
		return s.failed(err)
	}
	now := time.Now()
	snaps, events := s.track.update(gs, now)
	queues, why := s.readMetrics(ctx)
	s.failures, s.everReceived = 0, true
	s.mu.Lock()
	defer s.mu.Unlock()
	s.have, s.snaps, s.taken = true, snaps, now
	s.dumps++
	s.inCall = false
	for _, inf := range snaps {
		for _, l := range inf.Listeners {
			s.inCall = s.inCall || l.InCallback != ""
		}
	}
	if why == "" || len(s.queues) == 0 {
		s.queues = queues
	}
	s.metrics = why
	s.notes = nil
	if len(snaps) == 0 {
		s.notes = []string{"the goroutine dump shows no client-go informer listener (no (*processorListener).run): the process runs none yet, or is not a client-go controller"}
	}
	s.status = source.Status{State: source.Live}
	for _, e := range events {
		s.stats.Emitted++
		e.Seq = s.stats.Emitted
		s.events = append(s.events, e)
	}
	if n := len(s.events) - eventsKept; n > 0 {
		s.events = append(s.events[:0:0], s.events[n:]...)
		s.stats.Dropped += uint64(n)
	}
	return max(s.every-time.Since(start), 0)
}

// readMetrics reads the workqueues from /metrics, or says why not; a
// process without metrics is still shown.
func (s *Source) readMetrics(ctx context.Context) ([]source.Workqueue, string) {
	raw, err := s.get(ctx, PathMetrics, maxMetrics)
	if err != nil {
		return nil, "workqueues: " + err.Error()
	}
	qs, err := ParseWorkqueues(strings.NewReader(raw))
	if err != nil {
		return nil, fmt.Sprintf("workqueues: %s's %s could not be parsed: %v", s.where(), PathMetrics, err)
	}
	return qs, ""
}

// failed records a failed dump and returns the backoff.
func (s *Source) failed(err error) time.Duration {
	s.failures++
	wait := source.Backoff(s.failures, s.lo, s.hi)
	state := source.Disconnected
	if !s.everReceived {
		state = source.Connecting
	}
	st := source.Status{State: state, LastError: err.Error(), NextRetry: time.Now().Add(wait)}
	var r *refusedError
	if errors.As(err, &r) {
		st.Message = r.sentence
	}
	s.mu.Lock()
	s.status = st
	if !s.everReceived && r != nil {
		s.refused = r
	}
	s.mu.Unlock()
	return wait
}

// Check asks for pprof's index, which costs the target nothing, and
// says in a sentence why the target cannot be read when waiting will not
// help (wrapping source.ErrUnreachable); IsNotServed(err) when nothing
// serves pprof there.
func (s *Source) Check(ctx context.Context) error {
	_, err := s.get(ctx, PathIndex, 1<<20)
	return err
}

// IsNotServed reports whether err says the target serves no pprof.
func IsNotServed(err error) bool {
	var r *refusedError
	return errors.As(err, &r) && r.notServed
}

// WantsTLS reports whether err says the target speaks TLS and was asked
// in plain HTTP: an address given without a scheme can be tried again
// with https://.
func WantsTLS(err error) bool {
	var r *refusedError
	return errors.As(err, &r) && r.tls
}

// refusedError is an answer waiting will not mend; it wraps
// source.ErrUnreachable.
type refusedError struct {
	sentence  string
	notServed bool
	tls       bool // the target speaks TLS and was asked in plain HTTP
}

func (e *refusedError) Error() string { return e.sentence }
func (*refusedError) Unwrap() error   { return source.ErrUnreachable }

// get GETs path below the base and returns at most limit bytes of the
// body, or an error that is a sentence.
func (s *Source) get(ctx context.Context, path string, limit int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return "", err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var cert *tls.CertificateVerificationError
		var record tls.RecordHeaderError
		switch {
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return "", fmt.Errorf("no answer from %s to %s within %s", s.where(), trimQuery(path), s.timeout)
		case errors.As(err, &cert):
			return "", &refusedError{sentence: fmt.Sprintf("the TLS certificate of %s is not trusted (%v): give the CA that signed it with --agent-ca-file (kube-controller-manager's self-signed one is in its --cert-dir), or attach through the API server (-n NS pod/NAME:PORT), which does not need it", s.where(), cert.Err)}
		case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
			return "", &refusedError{sentence: fmt.Sprintf("%s answers plain HTTP, not TLS: give the address with http:// (or none)", s.where())}
		case errors.Is(err, syscall.ECONNREFUSED):
			return "", &refusedError{sentence: fmt.Sprintf("nothing listens at %s (connection refused): is the controller running, and is this the port that serves pprof?", s.where())}
		}
		return "", fmt.Errorf("%s: %w", s.where(), unwrapURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", fmt.Errorf("%s's answer to %s could not be read: %w", s.where(), trimQuery(path), err)
	}
	if int64(len(body)) > limit {
		return "", &refusedError{sentence: fmt.Sprintf("%s's answer to %s is larger than %d MiB: informtop does not read it", s.where(), trimQuery(path), limit>>20)}
	}
	p := trimQuery(path)
	switch resp.StatusCode {
	case http.StatusOK:
		return string(body), nil
	case http.StatusUnauthorized:
		if s.token == "" && s.route == nil {
			return "", &refusedError{sentence: fmt.Sprintf("%s wants a bearer token for %s (401 Unauthorized): pass one allowed to read it with --token-file FILE or $INFORMTOP_ATTACH_TOKEN (e.g. kubectl create token SERVICEACCOUNT), or attach through the API server (-n NS pod/NAME:PORT), which sends your kubeconfig's", s.where(), p)}
		}
		return "", &refusedError{sentence: fmt.Sprintf("%s rejected the token for %s (401 Unauthorized): use a token this cluster issued and has not expired", s.where(), p)}
	case http.StatusForbidden:
		return "", &refusedError{sentence: Forbidden(s.where(), p)}
	case http.StatusNotFound:
		if p == PathMetrics {
			return "", fmt.Errorf("%s serves no %s (404)", s.where(), p)
		}
		return "", &refusedError{notServed: true, sentence: fmt.Sprintf("%s serves no %s (404): turn profiling on (kube-controller-manager and kube-scheduler: --profiling, the default; controller-runtime: Options.PprofBindAddress; else import net/http/pprof), or give the address of the port that serves it", s.where(), p)}
	}
	text := strings.TrimSpace(string(body))
	if resp.StatusCode == http.StatusBadRequest && strings.Contains(text, "HTTPS server") {
		return "", &refusedError{tls: true, sentence: fmt.Sprintf("%s speaks TLS (it answered plain HTTP with 400 %q): give the address with https://", s.where(), text)}
	}
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	if text != "" {
		text = ": " + text
	}
	return "", fmt.Errorf("%s answered %s to %s%s", s.where(), resp.Status, p, text)
}

// Forbidden is the sentence for a 403 on path at where: the RBAC rule
// that lets the user read pprof (and metrics) on a component that asks
// the API server whether it may.
func Forbidden(where, path string) string {
	rule := `nonResourceURLs: ["/debug/pprof/*"], verbs: ["get"]`
	if path == PathMetrics {
		rule = `nonResourceURLs: ["/metrics"], verbs: ["get"]`
	}
	return fmt.Sprintf("%s does not let you read %s (403 Forbidden): its authorizer (the API server's RBAC, for kube-controller-manager, kube-scheduler and controller-runtime's authenticated metrics server) needs a ClusterRole bound to you with the rule %s (kubectl create clusterrole informtop-pprof --verb=get --non-resource-url='/debug/pprof/*' --non-resource-url=/metrics, then a clusterrolebinding of it to you)", where, path, rule)
}

func trimQuery(path string) string {
	p, _, _ := strings.Cut(path, "?")
	return p
}

// unwrapURL drops the request URL from a client error: the sentence
// names the target already.
func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}
