package tunnel

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// ClientOptions set how the HTTP client speaks to the agent.
type ClientOptions struct {
	// Roots verify the agent's certificate when it speaks TLS; nil: the
	// certificate is not verified (see HTTPClient).
	Roots *x509.CertPool
}

// HTTPClient is the client for the agent behind the tunnel, and the
// scheme of its port ("https" when it speaks TLS, which is found by
// trying a TLS handshake first).
//
// Every request carries the kubeconfig's own credentials the way
// client-go sends them to the API server (a bearer token, a token file,
// an exec plugin or an auth provider such as OIDC), so that an agent
// behind controller-runtime's authenticated metrics server accepts it;
// a request that carries its own Authorization header (attach's
// --token-file) keeps it. The client dials nothing but the tunnel, so
// these credentials never go to an address taken from elsewhere.
//
// Without Roots the agent's certificate is not verified: the API server
// (verified with the kubeconfig's CA) already chose the pod, and the
// certificate of a controller's metrics server is usually self-signed
// and names the service, not the pod.
func (t *Tunnel) HTTPClient(ctx context.Context, opts ClientOptions) (*http.Client, string, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true} //nolint:gosec // see the doc above
	if opts.Roots != nil {
		roots := opts.Roots
		// Verify the chain to the given roots; the name is not checked,
		// as the tunnel, not DNS, picked the pod.
		tlsConfig.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the agent sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			if _, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter}); err != nil {
				return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
			}
			return nil
		}
	}
	scheme, err := t.probeTLS(ctx, tlsConfig)
	if err != nil {
		return nil, "", err
	}
	tr := &http.Transport{
		DialContext:         t.DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
	}
	t.mu.Lock()
	t.transports = append(t.transports, tr)
	t.mu.Unlock()
	rt, err := rest.HTTPWrappersForConfig(t.cfg, tr)
	if err != nil {
		return nil, "", fmt.Errorf("the kubeconfig's credentials cannot be used: %w", err)
	}
	return &http.Client{Transport: rt}, scheme, nil
}

// Host is the host:port the agent's URL names: the pod and its port
// (the tunnel dials them whatever the URL says).
func (t *Tunnel) Host() string {
	v := t.shown.Load()
	return fmt.Sprintf("%s.%s:%d", v.pod, t.ns, v.port)
}

// SendsToken reports whether the kubeconfig has a bearer token to send
// (a token, a token file, an exec plugin or an auth provider); a client
// certificate alone is nothing an agent behind a metrics server's filter
// can check.
func (t *Tunnel) SendsToken() bool {
	c := t.cfg
	return c.BearerToken != "" || c.BearerTokenFile != "" || c.ExecProvider != nil || c.AuthProvider != nil
}

// probeTLS tells whether the pod's port speaks TLS: a handshake that
// the other side answers with something not TLS (a plain HTTP server
// answers 400) means plain HTTP.
func (t *Tunnel) probeTLS(ctx context.Context, cfg *tls.Config) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := t.DialContext(ctx, "tcp", t.Host())
	if err != nil {
		return "", err
	}
	defer conn.Close()
	tc := tls.Client(conn, cfg)
	err = tc.HandshakeContext(ctx)
	var rh tls.RecordHeaderError
	var fe *ForwardError
	switch {
	case err == nil:
		return "https", nil
	case errors.As(err, &rh):
		return "http", nil
	case errors.As(err, &fe):
		return "", fmt.Errorf("nothing answers on port %d of pod %s/%s (the kubelet said: %s): is the agent's port right? Name it as %s:PORT",
			t.Port(), t.ns, t.Pod(), fe.Message, t.target)
	case errors.Is(err, io.EOF):
		return "", fmt.Errorf("port %d of pod %s/%s closed the connection without answering: is it the agent's port? Name it as %s:PORT", t.Port(), t.ns, t.Pod(), t.target)
	case ctx.Err() != nil:
		return "", fmt.Errorf("port %d of pod %s/%s did not answer within 15s: is it the agent's port?", t.Port(), t.ns, t.Pod())
	}
	// Any other failure is TLS's own (a certificate the roots do not
	// verify, an alert): the port speaks TLS, and the requests will say.
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return "", fmt.Errorf("the certificate of port %d of pod %s/%s is not signed by --agent-ca-file's CA: %v", t.Port(), t.ns, t.Pod(), cv.Err)
	}
	return "https", nil
}
