package serve

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/shared/tokenfile"
)

// Options configures the agent.
type Options struct {
	// Token, when set, is the attach token: the bearer token
	// ("Authorization: Bearer <token>") that reads everything the agent
	// serves, caches, objects, frames, reports and /metrics. It is what
	// informtop attach sends, and with no MetricsToken what Prometheus
	// sends too. Serve requires it (or TokenFile) for an address that is
	// not loopback. Unset, the agent checks no token at all: for loopback,
	// or behind a server that authenticates for it (controller-runtime's
	// metrics server with filters.WithAuthenticationAndAuthorization).
	Token string
	// TokenFile, when set, is a file holding the token instead (a mounted
	// Secret's key, kept out of flags and the environment): a regular
	// file of at most 64 KiB, one trailing newline ignored, read once by
	// NewHandler, Serve and CheckAddr. Set Token or TokenFile, not both.
	TokenFile string
	// MetricsToken, when set, is a second bearer token that reads
	// PathMetrics and nothing else: the credential to give Prometheus, so
	// that whoever holds the scraper's secret cannot read the caches and
	// objects. Any other path asked with it is answered 403. It needs
	// Token (the caches would otherwise be open to everyone while /metrics
	// was not) and must differ from it. Unset, /metrics takes Token, as
	// every other path does.
	MetricsToken string
	// MetricsTokenFile is MetricsToken read from a file, as TokenFile is.
	MetricsTokenFile string
	// MetricsWithoutToken, with Token, serves PathMetrics to any client
	// without a token, for a scraper that a network policy (not a secret)
	// admits; Token still guards everything else. Not with MetricsToken.
	// Anyone who reaches the port then reads the metrics: informer,
	// handler and function names, queue depths, never an object.
	MetricsWithoutToken bool
	// Name is what Frame.Source says: the name of this process for people
	// attaching to it. Default: the executable's base name.
	Name string
	// Registry is where the agent registers its Prometheus collector and
	// what PathMetrics serves. nil: a registry of the agent's own. Pass
	// the registry given to NewMetricsProvider to serve client-go's
	// informer metrics too, or controller-runtime's metrics.Registry to
	// add informtop's series to the controller's /metrics.
	Registry Registry
	// Resources gives, per informer name, the group, version and resource
	// put in metric labels. Informers not listed take them from the
	// handler's Extras.Identity when it has a resource, else they are
	// labelled with their snapshot's Resource and an empty group and version.
	Resources map[string]schema.GroupVersionResource
	// TLSConfig, when set, makes Serve speak HTTPS with it. A non-loopback
	// address without Token is accepted only when it requires and verifies
	// client certificates.
	TLSConfig *tls.Config
	// Listening, when set, is called by Serve with the address it listens
	// on, before serving (useful with port 0).
	Listening func(net.Addr)
	// RequestsPerSecond bounds how many requests the agent answers per
	// second, from every client together, in two budgets neither can
	// spend of the other: three quarters for the attach paths (caches,
	// objects, frames, reports) and a quarter for /metrics, so a flood of
	// scrapes cannot starve an attached dashboard, nor the reverse. Each
	// allows a burst of as many at once; further requests wait their
	// turn, up to 2 s, then get 503. A request is charged only once its
	// token is checked: one without a valid token is refused at once and
	// spends nothing, so clients without the token cannot lock out those
	// with it. Default 100 (75 and 25): an attached dashboard asks 10 to
	// 20 times a second, a Prometheus server once every few; 50 scrapers
	// in a loop then cost the controller's handlers about what a busy
	// neighbour process does. Negative: no bound.
	RequestsPerSecond float64
}

// Registry is what the agent needs of a Prometheus registry; a
// *prometheus.Registry and controller-runtime's metrics.Registry are one.
type Registry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// readToken returns the token of one scope, from its value or its file,
// "" for none; an error, prefixed by the fields' names, says why it is
// unusable.
func readToken(tok, file, field string) (string, error) {
	switch {
	case tok != "" && file != "":
		return "", fmt.Errorf("agent: both Options.%s and Options.%sFile are set; set one", field, field)
	case file != "":
		tok, err := tokenfile.Read(file)
		if err != nil {
			return "", fmt.Errorf("agent: Options.%sFile: %w", field, err)
		}
		return tok, nil
	case tok != "":
		if err := tokenfile.Check(tok); err != nil {
			return "", fmt.Errorf("agent: Options.%s: %w", field, err)
		}
	}
	return tok, nil
}

// WithToken returns o with TokenFile and MetricsTokenFile read into Token
// and MetricsToken, so that a server reads the files once, or an error
// saying why the tokens cannot be used together.
func (o Options) WithToken() (Options, error) {
	tok, err := readToken(o.Token, o.TokenFile, "Token")
	if err != nil {
		return o, err
	}
	metrics, err := readToken(o.MetricsToken, o.MetricsTokenFile, "MetricsToken")
	if err != nil {
		return o, err
	}
	switch {
	case metrics != "" && tok == "":
		return o, errors.New("agent: Options.MetricsToken is set without Options.Token: it would guard /metrics while the caches stayed open to every client; set Token (or TokenFile) too, the token that reads everything")
	case metrics != "" && metrics == tok:
		return o, errors.New("agent: Options.MetricsToken is Options.Token: the scraper's token would read the caches; give it a token of its own")
	case metrics != "" && o.MetricsWithoutToken:
		return o, errors.New("agent: Options.MetricsWithoutToken serves /metrics without a token, so Options.MetricsToken would guard nothing; set one of them")
	}
	o.Token, o.TokenFile = tok, ""
	o.MetricsToken, o.MetricsTokenFile = metrics, ""
	return o, nil
}

// ProcessName is Name, else the executable's base name.
func (o Options) ProcessName() string {
	if o.Name != "" {
		return o.Name
	}
	if len(os.Args) > 0 && os.Args[0] != "" {
		return filepath.Base(os.Args[0])
	}
	return "agent"
}
