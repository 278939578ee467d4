package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/attach"
	"github.com/informtop/informtop/attach/pprof"
	"github.com/informtop/informtop/attach/tunnel"
	"github.com/informtop/informtop/kube"
)

// fleetAttach is how the fleet's Enter reaches a process's agent: through
// the API server of a kubeconfig context when the process's target labels
// name its namespace and pod (Kubernetes service discovery's labels), else
// directly at the address its agent label holds.
//
// The agents' own token (--agent-token-file) goes only to a direct
// address the user allowed with --agent-direct, never to one a scraped
// label names on its own; through the API server, the kubeconfig's
// credentials go to the pod the labels name, in the user's own cluster.
type fleetAttach struct {
	kubeFlags    *genericclioptions.ConfigFlags
	contextLabel string            // --kube-context-label: the target label naming the process's context
	clusters     map[string]string // --cluster-context: the context of each cluster (source.Process.Cluster)
	pathLabel    string            // --agent-path-label
	path         string            // --agent-path
	direct       []directRule
	token        string
}

// directRule is one --agent-direct entry: a CIDR, or a host with or
// without a port.
type directRule struct {
	prefix     netip.Prefix // valid for a CIDR
	host, port string
}

// parseDirect reads --agent-direct's entries.
func parseDirect(entries []string) ([]directRule, error) {
	var out []directRule
	for _, e := range entries {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case strings.Contains(e, "/"):
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("--agent-direct %q is not a CIDR, a host or a host:port: %v", e, err)
			}
			out = append(out, directRule{prefix: p.Masked()})
		default:
			host, port, err := net.SplitHostPort(e)
			if err != nil {
				host, port = e, ""
			}
			out = append(out, directRule{host: strings.ToLower(host), port: port})
		}
	}
	return out, nil
}

// allows reports whether the agents' token may go to addr (host:port, or
// a URL).
func (fa fleetAttach) allows(addr string) bool {
	hostPort := addr
	if _, rest, ok := strings.Cut(addr, "://"); ok {
		hostPort = rest
	}
	hostPort, _, _ = strings.Cut(hostPort, "/")
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		host = hostPort
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	ip, ipErr := netip.ParseAddr(host)
	for _, r := range fa.direct {
		switch {
		case r.prefix.IsValid():
			if ipErr == nil && r.prefix.Contains(ip.Unmap()) {
				return true
			}
		case r.host == host && (r.port == "" || r.port == port):
			return true
		}
	}
	return false
}

// open attaches to p's agent; stop ends what it opened.
// A process without the agent (source.Process.Pprof) is read through its
// goroutine dumps, at the same address or pod port its metrics are
// scraped from.
func (fa fleetAttach) open(ctx context.Context, p source.Process) (source.Source, func(), error) {
	path := fa.path
	if fa.pathLabel != "" && p.Labels[fa.pathLabel] != "" {
		path = p.Labels[fa.pathLabel]
	}
	if ns, pod := p.Labels["namespace"], p.Labels["pod"]; ns != "" && pod != "" {
		flags, err := fa.kubeFlagsFor(p)
		if err != nil {
			return nil, nil, err
		}
		cfg, err := flags.ToRESTConfig()
		if err != nil {
			return nil, nil, fmt.Errorf("it is pod %s/%s, reached through the API server, and the kubeconfig cannot be loaded: %w", ns, pod, err)
		}
		target := tunnel.Target{Kind: tunnel.Pod, Name: pod}
		if _, port, err := net.SplitHostPort(p.Instance); err == nil {
			target.Port = port // the port Prometheus scrapes: the metrics server's
		}
		at, err := openTunnel(ctx, cfg, ns, path, target, nil, "", pprofMode{force: p.Pprof})
		if err != nil {
			return nil, nil, err
		}
		return at.source(), at.tunnel.Close, nil
	}
	if p.Pprof {
		// No agent label to read: its metrics' address serves pprof too
		// when it serves it at all (net/http/pprof on the same mux).
		addr := cmp.Or(p.Agent, p.Instance)
		token := ""
		if fa.token != "" && fa.allows(addr) {
			token = fa.token
		}
		src, err := pprof.New(addr, pprofBase(addr), pprof.Options{Token: token})
		return src, func() {}, err
	}
	if p.Agent == "" {
		return nil, nil, errors.New("its target labels give neither namespace and pod nor an agent address: run informtop fleet with --agent-label LABEL")
	}
	addr := p.Agent
	if path != "" && !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(addr, "http://"), "https://"), "/") {
		addr = strings.TrimSuffix(addr, "/") + "/" + strings.Trim(path, "/") + "/"
	}
	token := ""
	if fa.token != "" && fa.allows(addr) {
		token = fa.token
	}
	a, err := attach.New(addr, attach.Options{Token: token})
	return a, func() {}, err
}

// kubeFlagsFor is the kubeconfig context p is reached through: its
// cluster's (--cluster-context, by source.Process.Cluster), else the one
// --kube-context-label's label names, else the kubeconfig's own.
func (fa fleetAttach) kubeFlagsFor(p source.Process) (*genericclioptions.ConfigFlags, error) {
	if name, ok := fa.clusters[p.Cluster]; ok && p.Cluster != "" {
		return kube.InContext(fa.kubeFlags, name), nil
	}
	if fa.contextLabel != "" {
		name := p.Labels[fa.contextLabel]
		if name == "" {
			return nil, fmt.Errorf("its target has no %s label, which --kube-context-label says names its kubeconfig context", fa.contextLabel)
		}
		return kube.InContext(fa.kubeFlags, name), nil
	}
	if p.Cluster != "" && len(fa.clusters) > 0 {
		return nil, fmt.Errorf("it is in cluster %s, which --cluster-context does not map to a kubeconfig context: add %s=CONTEXT", p.Cluster, p.Cluster)
	}
	return fa.kubeFlags, nil
}

// attachFromFleet is the fleet dashboard's Enter: attach to a process's
// agent, run until its stop is called or ctx (the dashboard's) ends, and
// counted in wg so the dashboard waits for it. The fleet's own source is
// not stopped: esc goes back to it.
func attachFromFleet(ctx context.Context, wg *sync.WaitGroup, fa fleetAttach) func(context.Context, source.Process) (source.Source, func(), error) {
	return func(octx context.Context, p source.Process) (source.Source, func(), error) {
		a, closeRoute, err := fa.open(octx, p)
		if err != nil {
			return nil, nil, err
		}
		actx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		wg.Go(func() {
			defer close(done)
			a.Run(actx)
			closeRoute()
		})
		stop := func() {
			cancel()
			<-done
		}
		back := source.Decoration{Frame: func(f source.Frame) source.Frame {
			f.Notes = append(slices.Clip(f.Notes), "opened from the fleet: esc or :fleet goes back to it")
			return f
		}}
		return source.Decorate(a, back), stop, nil
	}
}
