package agent

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
)

// handler serves agent/api for a fixed set of informers.
type handler struct {
	hasToken  bool
	tokenHash [sha256.Size]byte
	source    string
	informers []*engine.Informer
	byName    map[string]*engine.Informer
	names     []string // sorted, for error sentences
	events    *eventFeed
	queues    *WorkqueueMetrics // nil: frames carry no workqueues
	metrics   http.Handler
	routes    []route
}

type route struct {
	path  string
	serve func(http.ResponseWriter, *http.Request)
}

// NewHandler returns the agent's HTTP handler for the given informers:
// the paths of package agent/api, read-only, behind opts.Token when set.
// Paths match relative to the mount point (a request path ending in an
// api path is served), so the handler may be mounted under any prefix.
// It registers a Prometheus collector in opts.Registry (or a registry of
// its own); an error says why the informers or the registry are unusable.
func NewHandler(opts Options, informers ...*engine.Informer) (http.Handler, error) {
	h := &handler{
		source:    opts.name(),
		informers: slices.Clone(informers),
		byName:    make(map[string]*engine.Informer, len(informers)),
		queues:    opts.Workqueues,
	}
	for i, inf := range informers {
		if inf == nil {
			return nil, fmt.Errorf("agent: informer %d of %d is nil", i+1, len(informers))
		}
		if _, dup := h.byName[inf.Name()]; dup {
			return nil, fmt.Errorf("agent: two informers are named %q; give each a distinct engine.Options.Name so clients can tell them apart", inf.Name())
		}
		h.byName[inf.Name()] = inf
		h.names = append(h.names, inf.Name())
	}
	slices.Sort(h.names)
	if opts.Token != "" {
		h.hasToken, h.tokenHash = true, sha256.Sum256([]byte(opts.Token))
	}
	h.events = newEventFeed(h.informers, opts.MergedEventRingSize)

	reg := opts.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if err := reg.Register(newCollector(h.informers, opts.Resources, opts.Workqueues)); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return nil, fmt.Errorf("agent: the registry already holds informtop's collector for these informers; give each handler its own Options.Registry or create the handler once")
		}
		return nil, fmt.Errorf("agent: cannot register informtop's metrics: %w", err)
	}
	h.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})

	h.routes = []route{
		{api.PathFrame, h.serveFrame},
		{api.PathEntries, h.serveEntries},
		{api.PathGeneration, h.serveGeneration},
		{api.PathObject, h.serveObject},
		{api.PathIndex, h.serveIndex},
		{api.PathCut, h.serveCut},
		{api.PathMetrics, h.metrics.ServeHTTP},
	}
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(api.VersionHeader, api.Version)
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("the informtop agent is read-only: %s is not allowed, use GET", r.Method))
		return
	}
	if h.hasToken && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="informtop"`)
		writeError(w, http.StatusUnauthorized, "this informtop agent requires a bearer token: send \"Authorization: Bearer <token>\" (informtop attach --token)")
		return
	}
	for _, rt := range h.routes {
		if r.URL.Path == rt.path || strings.HasSuffix(r.URL.Path, rt.path) {
			rt.serve(w, r)
			return
		}
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("the informtop agent serves no %s; it serves %s, %s, %s, %s, %s, %s and %s",
		r.URL.Path, api.PathFrame, api.PathEntries, api.PathGeneration, api.PathObject, api.PathIndex, api.PathCut, api.PathMetrics))
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
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the query parameter informer is required; this agent serves %s", h.served()))
		return nil
	}
	inf, ok := h.byName[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("this agent serves no informer named %q; it serves %s", name, h.served()))
		return nil
	}
	return inf
}

func (h *handler) served() string {
	if len(h.names) == 0 {
		return "no informers"
	}
	return strings.Join(h.names, ", ")
}
