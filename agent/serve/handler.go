package serve

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// handler serves agent/api from a source.Source: every endpoint reads
// through the source only (frames and reports from Pull, the store
// endpoints from Store, cuts from Controls().Cuts, /metrics from the
// model), so it serves any source: the agent's view of client-go's
// informers, engine informers (informtop's tests), a fake. Its fields
// are fixed once newHandler returns; what changes (the sharer's answers,
// the budgets' limiters) locks itself, so it serves concurrently without
// a lock of its own.
type handler struct {
	src     source.Source
	name    string // Frame.Source: Options.Name or the executable's
	cuts    source.Cutter
	guard   guard // who may read what; checked before anything else
	extras  Extras
	metrics http.Handler
	routes  []route
	mux     *http.ServeMux // "GET <route's path>" for each route; "/" answers the rest
	share   *sharer
	budgets budgets // the request rate of the attach paths and of /metrics
}

// Extras are what the owner of a source knows of its informers beyond
// the data model; the zero Extras serve any source from the model alone.
type Extras struct {
	// Identity gives the group, version and resource an informer was
	// given as its client-go identity, for metric labels after
	// Options.Resources; zero when none.
	Identity func(informer string) schema.GroupVersionResource
	// CutState, when set, is a cheap token of what a cut of the informer
	// holds; otherwise its cache's generation is.
	CutState func(informer string) string
	// Workqueues says whether /metrics may carry workqueue series; a
	// source of its own always may.
	Workqueues bool
	// WorkqueueHistograms, when set, are the workqueues' duration
	// histograms, exported beside their other series; without it /metrics
	// has no duration series (the model keeps means and maxima only).
	WorkqueueHistograms func() []WorkqueueHistograms
	// Reserve, when set, runs once the collector is registered; an error
	// unregisters it and fails the handler.
	Reserve func() error
}

type route struct {
	path  string
	serve func(http.ResponseWriter, *http.Request)
	// class, for an answer whose cost grows with the caches or the
	// registry: computed one at a time per class and shared (see sharer).
	// nil: served as asked.
	class *class
	key   func(*http.Request) string // what of the request the answer depends on
	// state, when set, is a cheap token of what the answer reads: an
	// answer is shared only while it is unchanged.
	state func(*http.Request) string
}

// The classes of expensive answers and how long each shares an answer:
// a cache's answer (cut, entries, object, index) a second at most and
// only while the informer has received nothing new; metrics a second (a
// scrape's values are that much older than its timestamp at most); a
// frame or report a tenth of a second, the dashboard's refresh, as their
// figures run on in time. The endpoints' docs (agent/api) state it.
const (
	shareCache   = time.Second
	shareMetrics = time.Second
	shareFrames  = 100 * time.Millisecond
)

// NewHandler returns the agent's HTTP handler for src: the paths of
// package agent/api, read-only, behind opts.Token when set (/metrics
// behind opts.MetricsToken too, or no token with opts.MetricsWithoutToken),
// read through src alone. Frames are src.Pull's (their notes, status,
// server figures and pause state stay behind: the wire has no room for
// them), reports are built from a pull, the store endpoints read
// src.Store, cuts are src.Controls().Cuts' (404 with a sentence when the
// source has none) and /metrics is computed from the pulled model, labelled
// with group, version and resource from Options.Resources, else
// x.Identity, else an empty group and version and the informer's Resource.
//
// A request whose path (made canonical, as ServeMux does) ends in an api
// path is served, so the handler may be mounted under any prefix, with or
// without http.StripPrefix: mounted at "/debug/informtop/", it answers
// "/debug/informtop/informtop/v1/frame" with a frame. It registers a
// Prometheus collector in opts.Registry (or a registry of its own); an
// error says why the source or the registry is unusable. src must be
// running for its frames to move; the handler never runs it.
func NewHandler(src source.Source, opts Options, x Extras) (http.Handler, error) {
	if src == nil {
		return nil, errors.New("agent: NewHandler needs a source")
	}
	opts, err := opts.WithToken()
	if err != nil {
		return nil, err
	}
	return newHandler(src, opts, x)
}

// newHandler serves src; opts has its token read.
func newHandler(src source.Source, opts Options, x Extras) (*handler, error) {
	h := &handler{src: src, name: opts.ProcessName(), cuts: src.Controls().Cuts, extras: x, guard: newGuard(opts)}
	reg := opts.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	c := newCollector(src, opts.Resources, x.Identity, x.Workqueues)
	c.histograms = x.WorkqueueHistograms
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return nil, fmt.Errorf("agent: the registry already holds informtop's collector for these informers; give each handler its own Options.Registry or create the handler once")
		}
		return nil, fmt.Errorf("agent: cannot register informtop's metrics: %w", err)
	}
	if x.Reserve != nil {
		if err := x.Reserve(); err != nil {
			reg.Unregister(c)
			return nil, err
		}
	}
	h.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})

	h.share = newSharer()
	h.budgets = newBudgets(opts.RequestsPerSecond)
	caches := newClass("answers from the caches (cuts, entries, objects, indexes)", shareCache)
	frames := newClass("frames and reports", shareFrames)
	metrics := newClass("metrics", shareMetrics)
	h.routes = []route{
		{api.PathFrame, h.serveFrame, frames, queryKey("cursor", "max"), nil},
		{api.PathEntries, h.serveEntries, caches, queryKey("informer"), h.storeState},
		{api.PathGeneration, h.serveGeneration, nil, nil, nil}, // one number, read without a lock
		{api.PathObject, h.serveObject, caches, queryKey("informer", "key"), h.storeState},
		{api.PathIndex, h.serveIndex, caches, queryKey("informer", "index", "value"), h.storeState},
		{api.PathCut, h.serveCut, caches, queryKey("informer", "keys"), h.cutState},
		{api.PathReport, h.serveReport, frames, queryKey(), nil},
		{api.PathMetrics, h.metrics.ServeHTTP, metrics, metricsKey, nil},
	}
	h.mux = http.NewServeMux()
	for i, rt := range h.routes {
		// GET patterns match HEAD too, as net/http's do: the answer without
		// its body.
		h.mux.HandleFunc(http.MethodGet+" "+rt.path, func(w http.ResponseWriter, r *http.Request) {
			h.serveRoute(w, r, h.routes[i])
		})
	}
	h.mux.HandleFunc("/", h.serveUnrouted)
	return h, nil
}

// apiRoot begins every api path but api.PathMetrics (routed relies on it;
// TestHandlerMountsUnderAnyPrefix serves every api path under prefixes).
const apiRoot = "/informtop/v1/"

// apiPath is the api path a request for p asks for, as the mux routes
// it: p from the last apiRoot on, or api.PathMetrics for a path ending
// so, whatever prefix the handler is mounted under; any other path as it
// is, which no route matches. The path is made canonical first, as
// ServeMux does, so that the mux has no redirect to make (its Location
// would lose the prefix). An already canonical p costs no allocation.
func apiPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	switch i := strings.LastIndex(clean, apiRoot); {
	case strings.HasSuffix(clean, api.PathMetrics):
		return api.PathMetrics
	case i > 0:
		return clean[i:]
	}
	return clean
}

// routed is r with its path replaced by p, for the mux.
func routed(r *http.Request, p string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.Path, r2.URL.RawPath = p, ""
	return r2
}

// The answers to refused requests are fixed sentences, part of the wire
// contract (the api.Error of a 401, 403 or 405): a caller without a token
// learns nothing of the agent (no version header either), and the token
// is checked before the method so that no method tells more. A caller
// with the metrics token, refused a path beyond /metrics, is told why
// with the version header, which /metrics shows it anyway.
const (
	// SentenceUnauthorized answers a request without a valid token (401).
	SentenceUnauthorized = "this informtop agent requires a bearer token: send \"Authorization: Bearer <token>\" (informtop attach --token-file FILE)"
	// SentenceMetricsOnly answers the metrics token on any path but
	// /metrics (403).
	SentenceMetricsOnly = "this token is the informtop agent's metrics token: it reads /metrics only; the caches, objects, frames and reports need the agent's attach token (informtop attach --token-file FILE)"
	// SentenceReadOnly answers any method but GET and HEAD (405).
	SentenceReadOnly = "the informtop agent is read-only: use GET"
)

// The refusals' challenges (RFC 6750: a token is wanted; the token does
// not reach this path) and bodies, the latter encoded once: a flood of
// refused requests costs their HTTP handling, not an encoding each.
const (
	challengeUnauthorized = `Bearer realm="informtop"`
	challengeScope        = `Bearer realm="informtop", error="insufficient_scope"`
)

var (
	bodyUnauthorized = errorBody(SentenceUnauthorized)
	bodyMetricsOnly  = errorBody(SentenceMetricsOnly)
)

// ServeHTTP checks the request's token first, refusing one without a
// valid token before it costs anything else (routing, the rate bounds),
// then charges it to the budget of what it reads, then answers.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	sc := h.guard.scope(r)
	if sc == scopeNone {
		refuse(w, http.StatusUnauthorized, challengeUnauthorized, bodyUnauthorized)
		return
	}
	p := apiPath(r.URL.Path)
	metrics := p == api.PathMetrics
	switch {
	case metrics || sc == scopeAll:
	case sc == scopeMetrics:
		w.Header().Set(api.VersionHeader, api.Version)
		refuse(w, http.StatusForbidden, challengeScope, bodyMetricsOnly)
		return
	default: // no token, where only /metrics is open
		refuse(w, http.StatusUnauthorized, challengeUnauthorized, bodyUnauthorized)
		return
	}
	admit := h.budgets.attach
	if metrics {
		admit = h.budgets.metrics
	}
	if !admit.wait(r.Context()) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, sentenceTooMany)
		return
	}
	// The mux picks the handler by the path relative to the mount point;
	// the handler answers the request as it came.
	serve, _ := h.mux.Handler(routed(r, p))
	serve.ServeHTTP(w, r)
}

// serveRoute answers a GET (or HEAD) of rt's path.
func (h *handler) serveRoute(w http.ResponseWriter, r *http.Request, rt route) {
	w.Header().Set(api.VersionHeader, api.Version)
	if rt.class == nil {
		rt.serve(w, r)
		return
	}
	h.share.serve(w, r, rt)
}

// serveUnrouted answers what no route matches: any method but GET and
// HEAD on any path, 405 (the agent is read-only, and a refusal tells
// nothing, not even which paths exist), and a GET of a path the agent
// does not serve, 404.
func (h *handler) serveUnrouted(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, SentenceReadOnly)
		return
	}
	w.Header().Set(api.VersionHeader, api.Version)
	writeError(w, http.StatusNotFound, fmt.Sprintf("the informtop agent serves no %s; it serves %s, %s, %s, %s, %s, %s, %s and %s",
		r.URL.Path, api.PathFrame, api.PathReport, api.PathEntries, api.PathGeneration, api.PathObject, api.PathIndex, api.PathCut, api.PathMetrics))
}

// noEvents is the cursor of a pull that wants the figures and no events
// (reports, metrics, names): past any event a source holds.
const noEvents = math.MaxUint64

// store finds the cache of the informer named by the query parameter
// "informer", or answers why not itself and returns nil.
func (h *handler) store(w http.ResponseWriter, r *http.Request) (string, source.StoreReader) {
	name := r.URL.Query().Get("informer")
	if name == "" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the query parameter informer is required; this agent serves %s", h.list()))
		return "", nil
	}
	if sr := h.src.Store(name); sr != nil {
		return name, sr
	}
	h.unknown(w, name)
	return "", nil
}

// unknown answers 404 for an informer whose cache the source has not:
// one it does not serve, or one whose cache it does not serve.
func (h *handler) unknown(w http.ResponseWriter, name string) {
	if !slices.Contains(h.names(), name) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("this agent serves no informer named %q; it serves %s", name, h.list()))
		return
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("this agent does not serve the cache of informer %s", name))
}

// names are the informers served, sorted; read from a pull, so only
// answers that fail ask for them.
func (h *handler) names() []string {
	var names []string
	for _, inf := range h.src.Pull(noEvents, 1).Snapshots {
		names = append(names, inf.Name)
	}
	slices.Sort(names)
	return names
}

// list names the informers served, for error sentences.
func (h *handler) list() string {
	names := h.names()
	if len(names) == 0 {
		return "no informers"
	}
	return strings.Join(names, ", ")
}

// storeState is the generation of the cache the request names: every
// change to it moves the generation.
func (h *handler) storeState(r *http.Request) string {
	sr := h.src.Store(r.URL.Query().Get("informer"))
	if sr == nil {
		return "" // answered 404, which is not shared
	}
	return strconv.FormatUint(sr.Generation(), 10)
}

// cutState is what a cut of the informer holds: the extras' when set
// (the cache and what was received, queued or not), else the cache's
// generation.
func (h *handler) cutState(r *http.Request) string {
	if h.extras.CutState != nil {
		return h.extras.CutState(r.URL.Query().Get("informer"))
	}
	return h.storeState(r)
}

// NewSourceHandler is NewHandler of a source that serves its own
// workqueues (in its frames), with no Extras.
func NewSourceHandler(src source.Source, opts Options) (http.Handler, error) {
	return NewHandler(src, opts, Extras{Workqueues: true})
}
