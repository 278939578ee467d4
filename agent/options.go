package agent

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/internal/tokenfile"
)

// Options configures the agent.
type Options struct {
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer <token>"). Serve requires it (or TokenFile)
	// for an address that is not loopback.
	Token string
	// TokenFile, when set, is a file holding the token instead (a mounted
	// Secret's key, kept out of flags and the environment): a regular
	// file of at most 64 KiB, one trailing newline ignored, read once by
	// NewHandler, Serve and CheckAddr. Set Token or TokenFile, not both.
	TokenFile string
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
	// put in metric labels. Informers not listed take them from their
	// engine.Options.Identifier when it has a resource, else they are
	// labelled with their snapshot's Resource and an empty group and version.
	Resources map[string]schema.GroupVersionResource
	// TLSConfig, when set, makes Serve speak HTTPS with it. A non-loopback
	// address without Token is accepted only when it requires and verifies
	// client certificates.
	TLSConfig *tls.Config
	// Listening, when set, is called by Serve with the address it listens
	// on, before serving (useful with port 0).
	Listening func(net.Addr)
	// MergedEventRingSize (NewHandler) is the size of the ring that merges the events
	// of informers that do not share one ring, and of every informer when
	// Informers is set; default 4096 per ring known when the handler is
	// built (at least one).
	MergedEventRingSize int
	// Informers (NewHandler), when set, holds informers served besides those passed to
	// NewHandler or Serve, including ones added after the handler was
	// built: the way to serve informers created lazily, such as
	// controller-runtime's (see Set).
	Informers *Set
	// Workqueues, when set, is the MetricsProvider of the controller's
	// workqueues: every frame carries its queues (Frame.Workqueues) and
	// /metrics exports them as informtop_workqueue_* series labelled
	// name, read at scrape time.
	Workqueues *WorkqueueMetrics
	// RequestsPerSecond bounds how many requests the agent answers per
	// second, from every client together (a burst of as many at once);
	// further requests wait their turn, up to 2 s, then get 503. Default
	// 100: an attached dashboard asks 10 to 20 times a second, a
	// Prometheus server once every few; 50 scrapers in a loop then cost
	// the controller's handlers about what a busy neighbour process does.
	// Negative: no bound.
	RequestsPerSecond float64
}

// Registry is what the agent needs of a Prometheus registry; a
// *prometheus.Registry and controller-runtime's metrics.Registry are one.
type Registry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// token is the token the handler asks for, "" for none, from Token or
// TokenFile; an error says why it is unusable.
func (o Options) token() (string, error) {
	switch {
	case o.Token != "" && o.TokenFile != "":
		return "", errors.New("agent: both Options.Token and Options.TokenFile are set; set one")
	case o.TokenFile != "":
		tok, err := tokenfile.Read(o.TokenFile)
		if err != nil {
			return "", fmt.Errorf("agent: Options.TokenFile: %w", err)
		}
		return tok, nil
	case o.Token != "":
		if err := tokenfile.Check(o.Token); err != nil {
			return "", fmt.Errorf("agent: Options.Token: %w", err)
		}
	}
	return o.Token, nil
}

// withToken returns o with TokenFile read into Token, so that a server
// reads the file once.
func (o Options) withToken() (Options, error) {
	tok, err := o.token()
	if err != nil {
		return o, err
	}
	o.Token, o.TokenFile = tok, ""
	return o, nil
}

func (o Options) name() string {
	if o.Name != "" {
		return o.Name
	}
	if len(os.Args) > 0 && os.Args[0] != "" {
		return filepath.Base(os.Args[0])
	}
	return "agent"
}
