package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// shutdownGrace bounds how long Serve waits for requests in flight once
// its context is done.
const shutdownGrace = 5 * time.Second

// DefaultAddr is where Serve listens when addr is "": loopback, a free port
// (see Options.Listening to learn it).
const DefaultAddr = "127.0.0.1:0"

// Serve serves the handler newHandler builds (from opts with its token
// files read) on addr until ctx is done, then shuts
// down gracefully and returns nil. addr "" means DefaultAddr and an addr
// without a host (":9090") means 127.0.0.1 on that port, so the agent is
// reachable from this machine only unless asked otherwise. An address that
// is not loopback ("0.0.0.0:9090", a pod IP, a host name) is refused
// unless opts.Token or TokenFile is set, or opts.TLSConfig requires and
// verifies client certificates. opts.TokenFile and MetricsTokenFile are
// read once, here.
// Errors are sentences saying what to do.
func Serve(ctx context.Context, addr string, opts Options, newHandler func(Options) (http.Handler, error)) error {
	opts, err := opts.WithToken()
	if err != nil {
		return err
	}
	addr, err = CheckAddr(addr, opts)
	if err != nil {
		return err
	}
	h, err := newHandler(opts)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // done before it began
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("agent: cannot listen on %s: %w", addr, err)
	}
	if opts.TLSConfig != nil {
		ln = tls.NewListener(ln, opts.TLSConfig.Clone())
	}
	if opts.Listening != nil {
		opts.Listening(ln.Addr())
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("agent: serving on %s stopped: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("agent: serving on %s stopped: %w", addr, err)
	}
	return nil
}

// CheckAddr applies Serve's rules to addr, for a server of your own that
// mounts NewHandler: "" means DefaultAddr, an address without a host means
// 127.0.0.1, and one that is not loopback is refused unless opts.Token
// (or TokenFile, read here) is set or opts.TLSConfig verifies client
// certificates; a metrics token alone never suffices (it is refused
// without Token). It returns the address to listen on, or a sentence
// saying what to do.
func CheckAddr(addr string, opts Options) (string, error) {
	opts, err := opts.WithToken()
	if err != nil {
		return "", err
	}
	addr, err = listenAddr(addr)
	if err != nil {
		return "", err
	}
	if err := checkExposure(addr, opts); err != nil {
		return "", err
	}
	return addr, nil
}

// listenAddr fills in the loopback defaults.
func listenAddr(addr string) (string, error) {
	if addr == "" {
		return DefaultAddr, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("agent: %q is not an address to listen on (want HOST:PORT or :PORT): %v", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// checkExposure refuses to serve beyond this machine without a token or
// client certificates.
func checkExposure(addr string, opts Options) error {
	host, _, _ := net.SplitHostPort(addr)
	if isLoopback(host) || opts.Token != "" {
		return nil
	}
	if opts.TLSConfig != nil && opts.TLSConfig.ClientAuth == tls.RequireAndVerifyClientCert {
		return nil
	}
	return fmt.Errorf("agent: refusing to serve on %s without a token: that address is reachable from other machines and the agent shows your caches; set agent.Options.Token or TokenFile (clients send it with informtop attach --token-file) or listen on 127.0.0.1 and use kubectl port-forward", addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
