package agent

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/informtop/informtop/agent/serve"
)

// DefaultAddr is where Serve listens when addr is "": loopback, a free
// port (ServeOptions.Listening tells which).
const DefaultAddr = "127.0.0.1:0"

// Options configures the endpoint NewHandler and Serve build.
type Options struct {
	// Token, when set, is the bearer token ("Authorization: Bearer
	// <token>") that reads everything the endpoint serves: what informtop
	// attach sends, and, with no MetricsToken, what Prometheus sends.
	// Unset, no token is checked: for loopback, or behind a server that
	// authenticates for the agent (controller-runtime's metrics server
	// with filters.WithAuthenticationAndAuthorization).
	Token string
	// TokenFile is Token read from a file (a mounted Secret's key, kept
	// out of flags and the environment), once, when the endpoint is
	// built. Set Token or TokenFile, not both.
	TokenFile string
	// MetricsToken, when set, is a second token that reads /metrics and
	// nothing else: the one to give Prometheus. It needs Token.
	MetricsToken string
	// MetricsTokenFile is MetricsToken read from a file.
	MetricsTokenFile string
	// MetricsWithoutToken, with Token, serves /metrics to anyone who
	// reaches the port (never an object: informer, handler and function
	// names, counts and depths).
	MetricsWithoutToken bool
	// Name is the process's name for people attaching to it. Default: the
	// executable's base name.
	Name string
	// Registry is where the endpoint registers its Prometheus collector
	// and what /metrics serves. nil: a registry of its own. Give
	// controller-runtime's metrics.Registry to add informtop's series to
	// the controller's own /metrics.
	Registry Registry
	// Workqueues, when set, are the controller's workqueues (see
	// NewWorkqueueMetrics): attach shows them as the stage after the
	// handlers and /metrics exports them.
	Workqueues *WorkqueueMetrics
	// RequestsPerSecond bounds how many requests the endpoint answers a
	// second, from every client together: three quarters for attach, a
	// quarter for /metrics, so neither starves the other. Default 100;
	// negative: no bound.
	RequestsPerSecond float64
}

// ServeOptions are Options and what only Serve's own server uses.
type ServeOptions struct {
	Options
	// TLSConfig, when set, makes Serve speak HTTPS with it. An address
	// that is not loopback without Token is accepted only when it requires
	// and verifies client certificates.
	TLSConfig *tls.Config
	// Listening, when set, is called with the address Serve listens on
	// before it serves (useful with port 0).
	Listening func(net.Addr)
}

// Registry is what the endpoint needs of a Prometheus registry; a
// *prometheus.Registry and controller-runtime's metrics.Registry are one.
type Registry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// NewHandler returns the endpoint serving set's informers, those added
// later included, read-only, to mount on a server the controller already
// runs. It answers every path that ends in one of its own (it can be
// mounted under any prefix, with or without http.StripPrefix). Errors are
// sentences saying what to do.
func NewHandler(set *Set, opts Options) (http.Handler, error) {
	if set == nil {
		return nil, errors.New("agent: NewHandler needs the Set your informers are built with (agent.NewSet())")
	}
	return newEndpoint(set, opts.serve(), opts.Workqueues)
}

// Serve serves NewHandler's endpoint on addr until ctx is done, then
// shuts down gracefully and returns nil; run it in a goroutine and handle
// its error (a port already taken, say). addr "" means DefaultAddr, and
// ":9090" means 127.0.0.1:9090: the endpoint is reachable from this
// machine only unless asked otherwise. An address beyond loopback is
// refused without a Token (or client certificates).
func Serve(ctx context.Context, addr string, set *Set, opts ServeOptions) error {
	if set == nil {
		return errors.New("agent: Serve needs the Set your informers are built with (agent.NewSet())")
	}
	so := opts.Options.serve()
	so.TLSConfig, so.Listening = opts.TLSConfig, opts.Listening
	return serve.Serve(ctx, addr, so, func(o serve.Options) (http.Handler, error) { return newEndpoint(set, o, opts.Workqueues) })
}

// newEndpoint serves set and queues (nil: none) with o.
func newEndpoint(set *Set, o serve.Options, queues *WorkqueueMetrics) (http.Handler, error) {
	o, err := o.WithToken()
	if err != nil {
		return nil, err
	}
	src := newInformers(o.ProcessName(), set, queues)
	x := serve.Extras{Identity: src.identity, CutState: src.cutState, Workqueues: src.queues != nil}
	if queues != nil {
		x.WorkqueueHistograms = queues.histograms
	}
	return serve.NewHandler(src, o, x)
}

func (o Options) serve() serve.Options {
	so := serve.Options{
		Token: o.Token, TokenFile: o.TokenFile,
		MetricsToken: o.MetricsToken, MetricsTokenFile: o.MetricsTokenFile,
		MetricsWithoutToken: o.MetricsWithoutToken,
		Name:                o.Name,
		RequestsPerSecond:   o.RequestsPerSecond,
	}
	if o.Registry != nil {
		so.Registry = o.Registry
	}
	return so
}
