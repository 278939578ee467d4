package agent

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/redact"
)

// handler serves agent/api for the informers given to NewHandler and
// those in Options.Informers.
type handler struct {
	hasToken  bool
	tokenHash [sha256.Size]byte
	source    string
	fixed     []*engine.Informer // given to NewHandler
	set       *Set               // nil: the fixed informers only
	served    atomic.Pointer[view]
	events    *eventFeed
	queues    *WorkqueueMetrics // nil: frames carry no workqueues
	metrics   http.Handler
	routes    []route
	mux       *http.ServeMux // "GET <route's path>" for each route; "/" answers the rest
	share     *sharer
	admit     *admission // nil: no bound on the request rate

	// resources is Options.Resources; it decides redaction too.
	resources map[string]schema.GroupVersionResource
}

// view is what the handler serves at one moment: its fixed informers,
// then the set's in the order added. Views are never changed once built,
// and a newer view extends an older one, so the event feed can learn the
// informers it has not seen by position.
type view struct {
	informers []*engine.Informer
	byName    map[string]*engine.Informer
	names     []string // sorted, for error sentences
	fromSet   int      // how many of the set's informers it holds
}

func newView(fixed, added []*engine.Informer) *view {
	v := &view{
		informers: append(slices.Clip(fixed), added...),
		byName:    make(map[string]*engine.Informer, len(fixed)+len(added)),
		fromSet:   len(added),
	}
	for _, inf := range v.informers {
		v.byName[inf.Name()] = inf
		v.names = append(v.names, inf.Name())
	}
	slices.Sort(v.names)
	return v
}

// current returns the view to serve now, rebuilding it only when the set
// has grown since the last one (the set only grows, so its length tells).
func (h *handler) current() *view {
	v := h.served.Load()
	if h.set == nil {
		return v
	}
	added := h.set.informers()
	if len(added) == v.fromSet {
		return v
	}
	nv := newView(h.fixed, added)
	// A concurrent request may have stored a newer view: keep it then.
	h.served.CompareAndSwap(v, nv)
	return nv
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

// NewHandler returns the agent's HTTP handler for the given informers
// and, when opts.Informers is set, for those in that set, added before or
// after: the paths of package agent/api, read-only, behind opts.Token
// when set. A request whose path (made canonical, as ServeMux does) ends
// in an api path is served, so the handler may be mounted under any
// prefix, with or without http.StripPrefix: mounted at "/debug/informtop/",
// it answers "/debug/informtop/informtop/v1/frame" with a frame. It
// registers a Prometheus collector in opts.Registry (or a registry of its
// own); an error says why the informers or the registry are unusable.
func NewHandler(opts Options, informers ...*engine.Informer) (http.Handler, error) {
	opts, err := opts.withToken()
	if err != nil {
		return nil, err
	}
	h := &handler{
		source: opts.name(),
		fixed:  slices.Clone(informers),
		set:    opts.Informers,
		queues: opts.Workqueues,
	}
	seen := make(map[string]bool, len(informers))
	for i, inf := range informers {
		if inf == nil {
			return nil, fmt.Errorf("agent: informer %d of %d is nil", i+1, len(informers))
		}
		if seen[inf.Name()] {
			return nil, fmt.Errorf("agent: two informers are named %q; give each a distinct engine.Options.Name so clients can tell them apart", inf.Name())
		}
		seen[inf.Name()] = true
		// Mutation reports leave through the agent: list their fields
		// with secret values hidden, unless the informer's owner chose.
		inf.DescribeMutationsWith(redact.FieldChanges)
	}
	if opts.Token != "" {
		h.hasToken, h.tokenHash = true, sha256.Sum256([]byte(opts.Token))
	}
	h.resources = opts.Resources
	h.events = newEventFeed(h.fixed, h.set != nil, opts.MergedEventRingSize)
	h.served.Store(newView(h.fixed, nil)) // before the collector can be scraped

	reg := opts.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	c := newCollector(func() []*engine.Informer { return h.current().informers }, opts.Resources, opts.Workqueues)
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return nil, fmt.Errorf("agent: the registry already holds informtop's collector for these informers; give each handler its own Options.Registry or create the handler once")
		}
		return nil, fmt.Errorf("agent: cannot register informtop's metrics: %w", err)
	}
	// Reserved last, so that a handler that is not built claims no names.
	if h.set != nil {
		if err := h.set.reserve(h.fixed); err != nil {
			reg.Unregister(c)
			return nil, err
		}
	}
	h.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})

	h.share = newSharer()
	h.admit = newAdmission(opts.RequestsPerSecond)
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

// routed is r as the mux routes it: its path from the last apiRoot on, or
// api.PathMetrics for a path ending so, whatever prefix the handler is
// mounted under; any other path as it is, which no route matches. The
// path is made canonical first, as ServeMux does, so that the mux has no
// redirect to make (its Location would lose the prefix).
func routed(r *http.Request) *http.Request {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	switch i := strings.LastIndex(clean, apiRoot); {
	case strings.HasSuffix(clean, api.PathMetrics):
		clean = api.PathMetrics
	case i > 0:
		clean = clean[i:]
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.Path, r2.URL.RawPath = clean, ""
	return r2
}

// The answers to refused requests are fixed sentences without the
// version header: a caller without the token learns nothing of the agent,
// and the token is checked before the method so that no method tells more.
const (
	sentenceUnauthorized = "this informtop agent requires a bearer token: send \"Authorization: Bearer <token>\" (informtop attach --token-file FILE)"
	sentenceReadOnly     = "the informtop agent is read-only: use GET"
)

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !h.admit.wait(r.Context()) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, sentenceTooMany)
		return
	}
	if h.hasToken && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="informtop"`)
		writeError(w, http.StatusUnauthorized, sentenceUnauthorized)
		return
	}
	// The mux picks the handler by the path relative to the mount point;
	// the handler answers the request as it came.
	serve, _ := h.mux.Handler(routed(r))
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
		writeError(w, http.StatusMethodNotAllowed, sentenceReadOnly)
		return
	}
	w.Header().Set(api.VersionHeader, api.Version)
	writeError(w, http.StatusNotFound, fmt.Sprintf("the informtop agent serves no %s; it serves %s, %s, %s, %s, %s, %s, %s and %s",
		r.URL.Path, api.PathFrame, api.PathReport, api.PathEntries, api.PathGeneration, api.PathObject, api.PathIndex, api.PathCut, api.PathMetrics))
}

// authorized compares the bearer token in constant time (hashing both
// sides first, so neither the content nor the length leaks).
func (h *handler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.tokenHash[:]) == 1
}

// informer finds the informer named by the query parameter "informer", or
// answers the error itself and returns nil.
func (h *handler) informer(w http.ResponseWriter, r *http.Request) *engine.Informer {
	name := r.URL.Query().Get("informer")
	if name == "" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the query parameter informer is required; this agent serves %s", h.current().list()))
		return nil
	}
	v := h.current()
	inf, ok := v.byName[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("this agent serves no informer named %q; it serves %s", name, v.list()))
		return nil
	}
	return inf
}

// list names the informers served, for error sentences.
func (v *view) list() string {
	if len(v.names) == 0 {
		return "no informers"
	}
	return strings.Join(v.names, ", ")
}

// storeState is the generation of the cache the request names: every
// change to it moves the generation (one atomic read).
func (h *handler) storeState(r *http.Request) string {
	inf := h.current().byName[r.URL.Query().Get("informer")]
	if inf == nil {
		return "" // answered 404, which is not shared
	}
	return strconv.FormatUint(inf.StoreView().Generation(), 10)
}

// cutState adds the resourceVersion the informer last received to the
// cache's generation: a cut also holds what is queued and not yet in the
// cache. (The reflector records it just after queueing, so a cut can miss
// an object queued microseconds before the request.)
func (h *handler) cutState(r *http.Request) string {
	inf := h.current().byName[r.URL.Query().Get("informer")]
	if inf == nil {
		return ""
	}
	return strconv.FormatUint(inf.StoreView().Generation(), 10) + "@" + inf.LastSyncResourceVersion()
}
