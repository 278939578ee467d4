package fleet

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/safeurl"
)

// statusError is an HTTP answer that says the request itself is refused
// (401, 403) or goes nowhere Prometheus serves (404), caught before the
// answer is read as Prometheus' JSON.
type statusError struct{ code int }

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
}

// statusTransport turns those answers into statusErrors (the fleet's
// queries are GETs: a 403 is the credentials', not the method's).
type statusTransport struct{ next http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized, code == http.StatusForbidden, code == http.StatusNotFound:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &statusError{code}
	}
	return resp, nil
}

func (t statusTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// newHTTPClient is the fleet's client: Auth's credentials and TLS on
// every request, 401, 403 and 404 caught, and no redirect followed to
// another origin (the credentials would go there too).
func newHTTPClient(a Auth, secrets SecretFiles) (*http.Client, error) {
	t, err := newAuthTransport(a, secrets)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: statusTransport{t}, CheckRedirect: safeurl.SameOrigin}, nil
}

// refusedError is a first contact that waiting will not mend; it wraps
// source.ErrUnreachable.
type refusedError struct{ sentence string }

func (e *refusedError) Error() string { return e.sentence }
func (*refusedError) Unwrap() error   { return source.ErrUnreachable }

// explain says, as a sentence for the header, what a failed query means
// and what to do; final is true when retrying will not mend it.
func explain(promURL string, err error) (sentence string, final bool) {
	var se *statusError
	var ae *answerError
	var sfe *secretFileError
	var redirect *safeurl.RedirectError
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case errors.As(err, &ae):
		return ae.sentence, true
	case errors.As(err, &sfe):
		return sfe.sentence, true
	case errors.As(err, &redirect):
		return fmt.Sprintf("Prometheus at %s redirected the query to %s, another scheme, host or port, where informtop does not follow (the credentials would go there too): if Prometheus answers there, give that address with --prometheus",
			promURL, safeurl.Where(redirect.To)), true
	case errors.As(err, &se) && se.code == http.StatusUnauthorized:
		return fmt.Sprintf("Prometheus at %s wants credentials (401 Unauthorized): give --bearer-token-file FILE (or fix the token in it)", promURL), true
	case errors.As(err, &se) && se.code == http.StatusForbidden:
		return fmt.Sprintf("Prometheus at %s refuses these credentials (403 Forbidden): the token must be allowed to query (GET /api/v1/query)", promURL), true
	case errors.As(err, &se) && se.code == http.StatusNotFound:
		return fmt.Sprintf("%s has no /api/v1/query (404): give Prometheus' address with its path prefix if it has one, e.g. http://prometheus:9090 or https://thanos.example/prometheus", promURL), true
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens at %s (connection refused): is Prometheus running there?", promURL), true
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("the host of %s does not resolve (%s): check --prometheus", promURL, dns.Name), true
	case errors.As(err, &unknownCA):
		return fmt.Sprintf("%s's certificate is signed by an authority this machine does not trust: give its CA with --ca-file", promURL), true
	case errors.As(err, &hostname):
		return fmt.Sprintf("%s's certificate is not for that host (%v): use the name it was issued for", promURL, hostname.Error()), true
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return fmt.Sprintf("%s answers plain HTTP, not TLS: give the URL with http://", promURL), true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("the query to Prometheus at %s failed: %v", promURL, err), false
}
