package attach

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/polling"
	"github.com/informtop/informtop/internal/safeurl"
)

const (
	// DefaultTimeout bounds each request to the agent.
	DefaultTimeout = 5 * time.Second
	// DefaultPollInterval is how often the poller fetches a frame: the
	// dashboard's refresh rate.
	DefaultPollInterval = 100 * time.Millisecond

	minBackoff = time.Second
	maxBackoff = 30 * time.Second
	// catchUpPolls bounds the polls made back to back while the agent
	// has more events than one frame carries.
	catchUpPolls = 8
)

// Options configure a Source.
type Options struct {
	// Token is sent as "Authorization: Bearer <token>" when not empty.
	Token string
	// HTTPClient makes the requests; a client of its own (TLS as
	// http.DefaultTransport) when nil.
	HTTPClient *http.Client
	// Timeout bounds each request; DefaultTimeout when 0.
	Timeout time.Duration
	// PollInterval is the time between frames while connected;
	// DefaultPollInterval when 0.
	PollInterval time.Duration
	// Route, when set, is how the agent is reached other than by its
	// address alone (a port-forward through the API server): it names
	// the agent and says what a refusal on the way means.
	Route Route
}

// Route is a way to the agent other than its address: attach/tunnel's
// port-forward through the API server. Its methods are safe for
// concurrent use.
type Route interface {
	// Describe names where the agent is now, for the header and
	// sentences ("prod/ctrl-7d9f-x2x (deploy/ctrl) via API server").
	Describe() string
	// Unauthorized is the sentence for a 401 from whatever guards the
	// agent; tokenGiven is whether the user gave a token of their own.
	Unauthorized(tokenGiven bool) string
	// Forbidden is the sentence for a 403 from whatever guards the
	// agent, for a GET of path.
	Forbidden(path string) string
}

// Source reads a debug agent over HTTP. It implements source.Source and
// source.Cutter. Every method is safe for concurrent use.
//
// Locking: mu guards name, last, have, status; the event buffer has its
// own lock. The poller (Run) is the only writer.
type Source struct {
	addr    string // as the user gave it, for sentences and the title
	route   Route  // nil: addr is the whole way
	base    string // URL the api paths are appended to, no trailing slash
	token   string
	client  *http.Client
	timeout time.Duration
	every   time.Duration
	lo, hi  time.Duration // backoff bounds; tests shorten them

	events  *eventBuffer
	started atomic.Bool

	// Poller state, touched only by Run's goroutine.
	cursor       uint64 // the agent's sequence number to ask for next
	lastEmitted  uint64 // the agent's ring total last seen, to notice a restart
	failures     int    // consecutive failed polls
	everReceived bool
	// refused is why the agent cannot be read, when the first contact
	// failed in a way retrying will not mend (see refusal); guarded by mu.
	refused error

	mu     sync.Mutex
	name   string    // the agent's Source name, "" until known
	last   api.Frame // newest frame received; Events dropped
	have   bool      // last is set
	status source.Status
}

var (
	_ source.Source = (*Source)(nil)
	_ source.Cutter = (*Source)(nil)
)

// New returns a Source for the agent at addr: "host:port" or an http(s)
// URL, possibly with the path the agent's handler is mounted under.
// Nothing is contacted before Run.
func New(addr string, opts Options) (*Source, error) {
	base, err := parseAddr(addr)
	if err != nil {
		return nil, err
	}
	if opts.Timeout < 0 || opts.PollInterval < 0 {
		return nil, errors.New("the attach timeout and poll interval must not be negative")
	}
	s := &Source{
		addr: strings.TrimSpace(addr), route: opts.Route, base: base, token: opts.Token, client: opts.HTTPClient,
		timeout: cmp(opts.Timeout, DefaultTimeout), every: cmp(opts.PollInterval, DefaultPollInterval),
		lo: minBackoff, hi: maxBackoff, events: newEventBuffer(eventBufferSize),
	}
	if s.client == nil {
		s.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	} else {
		c := *s.client // the caller's, unchanged
		s.client = &c
	}
	// Go's client keeps the token on a redirect to another port of the
	// same host: follow none to another origin.
	s.client.CheckRedirect = safeurl.SameOrigin
	s.status = source.Status{State: source.Connecting, Message: "connecting to " + s.where()}
	return s, nil
}

// where names the agent for the title and sentences: the route's
// description, or the address.
func (s *Source) where() string {
	if s.route != nil {
		return s.route.Describe()
	}
	return s.addr
}

func cmp(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// parseAddr turns what the user typed into the base URL, or says what is
// wrong with it.
func parseAddr(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	shown := safeurl.Redact(addr) // a password in it is never repeated
	const want = `give host:port (e.g. 127.0.0.1:6060), host:port/path or a URL (e.g. http://127.0.0.1:8080/debug/informtop/)`
	if addr == "" {
		return "", errors.New("no agent address: " + want)
	}
	if hostPort, path, ok := strings.Cut(addr, "/"); ok && !strings.Contains(addr, "://") {
		// host:port/path, as copied from a mount's URL without its scheme.
		base, err := parseAddr(hostPort)
		if err != nil {
			return "", err
		}
		return parseAddr(base + "/" + path)
	}
	if !strings.Contains(addr, "://") {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return "", fmt.Errorf("%q is not an agent address: %s", shown, want)
		}
		if strings.Contains(host, "@") {
			return "", fmt.Errorf("%q: give the agent's address without user (the token goes in --token-file): %s", shown, want)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q has no valid port (1-65535): %s", shown, want)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		return "http://" + net.JoinHostPort(host, port), nil
	}
	u, err := url.Parse(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not an agent address: %s", shown, want)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: the agent speaks http or https, not %s: %s", shown, u.Scheme, want)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("%q names no host: %s", shown, want)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("%q: give the agent's URL without user, query or fragment: %s", shown, want)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q has no valid port (1-65535): %s", shown, want)
		}
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// Kind implements source.Source.
func (s *Source) Kind() string { return "attach" }

// Title implements source.Source: the address, and the agent's name for
// its process once a frame said it.
func (s *Source) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.name == "" {
		return s.where()
	}
	return s.where() + " · " + s.name
}

// ShortTitle is the route's short name for a narrow header (the pod,
// without the workload and port), or "" for an address.
func (s *Source) ShortTitle() string {
	if r, ok := s.route.(interface{ Pod() string }); ok {
		return r.Pod()
	}
	return ""
}

// Status is the connection state as the next frame will carry it.
func (s *Source) Status() source.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Pull implements source.Source. It does no I/O: the snapshots, reasons,
// workqueues and status are the poller's latest, the events come from the local
// buffer after cursor.
func (s *Source) Pull(cursor uint64, maxEvents int) source.Frame {
	s.mu.Lock()
	f := source.Frame{
		Snapshots:  source.CloneInformers(s.last.Snapshots), // the reader may write into its copy
		EventStats: s.last.EventStats,
		Status:     s.status,
		Reasons:    maps.Clone(s.last.Reasons),
		Workqueues: slices.Clone(s.last.Workqueues),
		Taken:      s.last.Taken,
	}
	if s.have {
		what := "the agent"
		if s.name != "" {
			what = s.name
		}
		f.Notes = []string{fmt.Sprintf("attached to %s at %s (read-only)", what, s.where())}
		if m, ok := s.route.(interface{ Moved() string }); ok {
			if moved := m.Moved(); moved != "" {
				f.Notes = append(f.Notes, moved)
			}
		}
	}
	s.mu.Unlock()
	if f.Taken.IsZero() {
		f.Taken = time.Now()
	}
	f.Events, f.Next, f.Missed = s.events.since(cursor, maxEvents)
	return f
}

// Run polls the agent until ctx is done and returns once the poller has
// stopped. A Source runs once; another call returns at once.
func (s *Source) Run(ctx context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		return
	}
	defer s.client.CloseIdleConnections()
	polling.Run(ctx, func(ctx context.Context) time.Duration {
		wait := s.poll(ctx)
		for i := 1; wait == 0 && i < catchUpPolls && ctx.Err() == nil; i++ {
			wait = s.poll(ctx)
		}
		return max(wait, s.every)
	})
}

// poll fetches one frame and returns how long to wait before the next:
// 0 when the agent has more events right away.
func (s *Source) poll(ctx context.Context) time.Duration {
	q := url.Values{"cursor": {strconv.FormatUint(s.cursor, 10)}, "max": {strconv.Itoa(api.MaxEvents)}}
	var f api.Frame
	err := s.get(ctx, api.PathFrame, q, &f)
	if ctx.Err() != nil {
		return s.every // stopping; the answer is moot
	}
	if err != nil {
		return s.failed(err)
	}
	s.failures = 0
	if s.cursor > 0 && (f.Next < s.cursor || f.EventStats.Emitted < s.lastEmitted) {
		// A new agent process: its ring counts from 1 again. Read it from
		// its oldest event; our numbering goes on.
		s.cursor, s.lastEmitted = 0, 0
		return 0
	}
	s.events.add(f.Events, f.Missed)
	full := len(f.Events) >= api.MaxEvents
	s.cursor, s.lastEmitted = f.Next, f.EventStats.Emitted
	f.Events = nil
	s.everReceived = true
	s.mu.Lock()
	s.last, s.have, s.name = f, true, f.Source
	s.status = source.Status{State: source.Live}
	s.mu.Unlock()
	if full {
		return 0
	}
	return s.every
}

// failed records a failed poll and returns the backoff before the next.
func (s *Source) failed(err error) time.Duration {
	s.failures++
	wait := source.Backoff(s.failures, s.lo, s.hi)
	state := source.Disconnected
	if !s.everReceived {
		state = source.Connecting
	}
	st := s.statusOf(err, state)
	st.NextRetry = time.Now().Add(wait)
	s.mu.Lock()
	s.status = st
	if !s.everReceived {
		s.refused = refusal(s.where(), err, st)
	}
	s.mu.Unlock()
	return wait
}

// statusOf is the status a failed request leaves, in state unless the
// failure says more: the sentence to show and the detail behind it.
func (s *Source) statusOf(err error, state source.State) source.Status {
	st := source.Status{State: state, LastError: err.Error()}
	var inc *incompatibleError
	var unauth *unauthorizedError
	var notServed *notServedError
	switch {
	case errors.As(err, &inc):
		st.State, st.Message, st.LastError = source.Incompatible, inc.sentence, ""
	case errors.As(err, &unauth):
		st.Message, st.LastError = unauth.sentence, unauth.detail
	case errors.As(err, &notServed):
		st.LastError = notServed.sentence
	case errors.Is(err, errNotFound):
		st.LastError = fmt.Sprintf("%s has no %s (404): is the agent's handler mounted under another path? Give the URL that ends where it is mounted", s.where(), api.PathFrame)
	}
	return st
}

// Check asks the agent for one frame, before Run, and says why it cannot
// be read when waiting will not mend it: the error wraps
// source.ErrUnreachable then (a token wanted, a path or protocol it does
// not serve, TLS on one side only); IsNotServed tells that nothing is
// mounted at the path. A timeout or a reset returns its error as is.
func (s *Source) Check(ctx context.Context) error {
	var f api.Frame
	q := url.Values{"cursor": {"0"}, "max": {"1"}}
	err := s.get(ctx, api.PathFrame, q, &f)
	if err == nil {
		return nil
	}
	if r := refusal(s.where(), err, s.statusOf(err, source.Connecting)); r != nil {
		return &checkError{refused: r, cause: err}
	}
	return err
}

// checkError is Check's refusal, keeping the cause for IsNotServed.
type checkError struct{ refused, cause error }

func (e *checkError) Error() string { return e.refused.Error() }
func (e *checkError) Unwrap() []error {
	return []error{e.refused, e.cause}
}

// IsNotServed reports whether err says nothing answers at the agent's
// path: a 404 from the agent, or from a server with no agent mounted
// there.
func IsNotServed(err error) bool {
	var ns *notServedError
	return errors.Is(err, errNotFound) || errors.As(err, &ns)
}

// WaitSynced implements source.Source: it returns once a frame from the
// agent shows every informer and every handler registration synced. It
// needs Run to be running.
func (s *Source) WaitSynced(ctx context.Context) error {
	tick := time.NewTicker(min(s.every, 50*time.Millisecond))
	defer tick.Stop()
	for {
		s.mu.Lock()
		have, snaps, reasons, st, refused := s.have, s.last.Snapshots, s.last.Reasons, s.status, s.refused
		s.mu.Unlock()
		pending := notSynced(snaps, reasons, time.Now())
		if have && len(pending) == 0 {
			return nil
		}
		if !have && refused != nil {
			return refused
		}
		select {
		case <-tick.C:
			continue
		case <-ctx.Done():
		}
		var msg string
		if !have {
			msg = "no frame from the agent at " + s.where() + " yet"
		} else {
			msg = "not synced at " + s.where() + ": " + strings.Join(pending, "; ")
		}
		if line := say.Status(st, time.Now()); line != "" && st.State != source.Live {
			msg += " (" + line + ")"
		}
		if st.State != source.Live && st.Message != "" && st.LastError != "" {
			msg += " (last error: " + st.LastError + ")"
		}
		return fmt.Errorf("%s: %w", msg, ctx.Err())
	}
}

// notSynced names every informer and handler registration that has not
// synced, with the agent's reason for the informers.
func notSynced(snaps []source.Informer, reasons source.Reasons, now time.Time) []string {
	var out []string
	for _, sn := range snaps {
		if !sn.Synced {
			what := "informer " + sn.Name
			if r := say.Reason(reasons, sn, now); r != "" {
				what += " (" + r + ")"
			}
			out = append(out, what)
		}
		for _, l := range sn.Listeners {
			if !l.Synced {
				out = append(out, fmt.Sprintf("listener %s of %s", l.Name, sn.Name))
			}
		}
	}
	return out
}

// Controls implements source.Source: an attached process is only shown;
// its informers run, and are paced, where they live. Its caches can be
// cut (Cut), as the agent asks its own source to. (informtop attach adds
// a verifier when given a cluster to compare with.)
func (s *Source) Controls() source.Controls { return source.Controls{Cuts: s} }
