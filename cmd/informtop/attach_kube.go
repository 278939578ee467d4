package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informtop/informtop/agent/shared/smallfile"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/attach"
	"github.com/informtop/informtop/attach/pprof"
	"github.com/informtop/informtop/attach/tunnel"
)

// agentPaths are where attach looks for the agent on a Kubernetes target
// when --path does not say: the mount docs/agent.md shows in a
// controller-runtime manager's metrics server, then agent.Serve's root.
var agentPaths = []string{"/debug/informtop/", "/"}

// tunnelPollInterval is how often a frame is asked for through the API
// server: each one a request the API server relays to the kubelet, so
// less often than on a direct address (the dashboard still redraws every
// --refresh from what it has). docs/benchmarks.md has what each costs.
const tunnelPollInterval = 250 * time.Millisecond

// preflightTimeout bounds finding the pod, the port-forward and the first
// answer, so a refusal is a sentence at once, never a dashboard that
// waits.
const preflightTimeout = 30 * time.Second

// attachTarget is how attach reaches its target: the source (the
// agent's, or in pprof mode the goroutine dumps'), and the tunnel to
// close when it is done (nil for an address).
type attachTarget struct {
	src    *attach.Source
	pprof  *pprof.Source // set instead of src in pprof mode
	tunnel *tunnel.Tunnel
}

// source is whichever source the target has.
func (t attachTarget) source() source.Source {
	if t.pprof != nil {
		return t.pprof
	}
	return t.src
}

// attachFlags are attach's own flags on the way to the agent.
type attachFlags struct {
	path   string // --path: the agent's mount on a Kubernetes target
	caFile string // --agent-ca-file
	pprofMode
}

// pprofMode says when attach reads goroutine dumps instead of an agent.
type pprofMode struct {
	force    bool          // --pprof: never look for an agent
	fallback bool          // no agent answers (404): try /debug/pprof/
	every    time.Duration // --dump-interval
}

// openAttach turns attach's argument into a source: a Kubernetes object
// (TYPE/NAME[:PORT]) is reached through the API server, anything else is
// an address as before.
func openAttach(ctx context.Context, o *options, af attachFlags, arg, token string) (attachTarget, error) {
	roots, err := readAgentCA(af.caFile)
	if err != nil {
		return attachTarget{}, err
	}
	target, isKube, err := tunnel.ParseTarget(arg)
	if err != nil {
		return attachTarget{}, err
	}
	if !isKube {
		if af.path != "" {
			return attachTarget{}, errors.New("--path is for a Kubernetes target (e.g. deploy/NAME); with an address, give the path in it: HOST:PORT/debug/informtop/")
		}
		opts := attach.Options{Token: token}
		if roots != nil {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
			opts.HTTPClient = &http.Client{Transport: tr}
		}
		if af.force {
			return openPprof(ctx, arg, pprofBase(arg), nil, af.pprofMode, token, opts.HTTPClient)
		}
		src, err := attach.New(arg, opts)
		if err != nil || !af.fallback {
			return attachTarget{src: src}, err
		}
		// A process that answers 404 where the agent would be may serve
		// pprof: ask before showing an agent that is not there.
		cctx, cancel := context.WithTimeout(ctx, preflightTimeout)
		defer cancel()
		cerr := src.Check(cctx)
		switch {
		case cerr != nil && attach.IsNotServed(cerr):
			at, perr := openPprof(cctx, arg, pprofBase(arg), nil, af.pprofMode, token, opts.HTTPClient)
			if perr == nil {
				return at, nil
			}
			if !pprof.IsNotServed(perr) {
				return attachTarget{}, perr
			}
			return attachTarget{}, fmt.Errorf("%s serves neither informtop's agent nor pprof: %w", arg, perr)
		case errors.Is(cerr, source.ErrUnreachable) && !nothingAnswered(cerr):
			// An answer the poller would only get again (and one past
			// the budget it would read again): say it now, as through
			// the API server. Nothing listening yet is no answer: the
			// dashboard waits for the controller to come up.
			return attachTarget{}, cerr
		}
		// Answered, or not yet (a timeout, a reset): the poller goes on.
		return attachTarget{src: src}, nil
	}
	cfg, err := o.kubeFlags.ToRESTConfig()
	if err != nil {
		return attachTarget{}, fmt.Errorf("attach to %s goes through the API server, and the kubeconfig cannot be loaded: %w", target, err)
	}
	ns, _, err := o.kubeFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return attachTarget{}, fmt.Errorf("the kubeconfig's namespace cannot be read: %w", err)
	}
	return openTunnel(ctx, cfg, ns, af.path, target, roots, token, af.pprofMode)
}

// nothingAnswered reports whether err is a failure to reach anything at
// all (nothing listening, a name that does not resolve), not an answer.
func nothingAnswered(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns)
}

// openPprof checks that base serves pprof and returns its source, or the
// sentence why not (pprof.IsNotServed when it serves none).
func openPprof(ctx context.Context, addr, base string, route pprof.Route, mode pprofMode, token string, client *http.Client) (attachTarget, error) {
	src, err := pprof.New(addr, base, pprof.Options{Token: token, HTTPClient: client, DumpInterval: mode.every, Route: route})
	if err != nil {
		return attachTarget{}, err
	}
	if err := src.Check(ctx); err != nil {
		if pprof.WantsTLS(err) && route == nil && !strings.Contains(addr, "://") {
			// host:port of a secure port (kube-controller-manager's
			// 10257): the scheme was ours to guess.
			return openPprof(ctx, "https://"+strings.TrimSpace(addr), "https://"+strings.TrimPrefix(base, "http://"), route, mode, token, client)
		}
		return attachTarget{}, err
	}
	return attachTarget{pprof: src}, nil
}

// pprofBase is the URL pprof's and the metrics' paths go under for an
// address: "http://HOST:PORT" unless a scheme is given.
func pprofBase(addr string) string {
	addr = strings.TrimRight(strings.TrimSpace(addr), "/")
	if !strings.Contains(addr, "://") {
		return "http://" + addr
	}
	return addr
}

// openTunnel finds the target's pod in ns, opens the port-forward, tells
// TLS from plain HTTP and finds the agent's path (path, else agentPaths);
// each failure is a sentence.
func openTunnel(ctx context.Context, cfg *rest.Config, ns, path string, target tunnel.Target, roots *x509.CertPool, token string, mode pprofMode) (attachTarget, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	tun, err := tunnel.New(ctx, tunnel.Options{Config: cfg, Namespace: ns, Target: target})
	if err != nil {
		return attachTarget{}, err
	}
	client, scheme, err := tun.HTTPClient(ctx, tunnel.ClientOptions{Roots: roots})
	if err != nil {
		tun.Close()
		return attachTarget{}, err
	}
	base := scheme + "://" + tun.Host()
	if mode.force {
		at, err := openPprof(ctx, tun.Describe(), base, tun, mode, token, client)
		if err != nil {
			client.CloseIdleConnections()
			tun.Close()
			return attachTarget{}, err
		}
		at.tunnel = tun
		return at, nil
	}
	paths := agentPaths
	if path != "" {
		paths = []string{strings.TrimSuffix("/"+strings.Trim(path, "/"), "/") + "/"}
	}
	var last error
	for _, p := range paths {
		src, err := attach.New(scheme+"://"+tun.Host()+p, attach.Options{Token: token, HTTPClient: client, Route: tun, PollInterval: tunnelPollInterval})
		if err != nil {
			tun.Close()
			return attachTarget{}, err
		}
		if last = src.Check(ctx); last == nil {
			return attachTarget{src: src, tunnel: tun}, nil
		}
		if !attach.IsNotServed(last) {
			break
		}
	}
	if attach.IsNotServed(last) && path == "" && mode.fallback {
		at, err := openPprof(ctx, tun.Describe(), base, tun, mode, token, client)
		if err == nil {
			at.tunnel = tun
			return at, nil
		}
		if !pprof.IsNotServed(err) {
			client.CloseIdleConnections()
			tun.Close()
			return attachTarget{}, err
		}
	}
	client.CloseIdleConnections()
	tun.Close()
	if attach.IsNotServed(last) && path == "" {
		return attachTarget{}, fmt.Errorf("no informtop agent answers on %s under %s, nor pprof under %s: give the path the agent's handler is mounted at with --path, or the port that serves pprof",
			tun.Describe(), strings.Join(agentPaths, " or "), pprof.PathIndex)
	}
	return attachTarget{}, last
}

// readAgentCA reads --agent-ca-file: PEM certificates, at most 1 MiB, a
// regular file (never a FIFO or a device).
func readAgentCA(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	pem, err := smallfile.Read(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--agent-ca-file %s: %w", path, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--agent-ca-file %s holds no PEM certificate", path)
	}
	return pool, nil
}
