package attach

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/safeurl"
)

// refusedError is a first contact that waiting will not mend; it wraps
// source.ErrUnreachable.
type refusedError struct{ sentence string }

func (e *refusedError) Error() string { return e.sentence }
func (*refusedError) Unwrap() error   { return source.ErrUnreachable }

// refusal says why the agent at addr cannot be read when err, the first
// poll's failure, is one retrying will not mend: a token it wants, a
// protocol or path it does not serve, nothing listening, a name that does
// not resolve, TLS on one side only, a 500 of its own, an answer past
// maxBody. nil for anything else (a timeout, a reset: the agent may be
// starting or busy), which the poller retries.
func refusal(addr string, err error, st source.Status) error {
	var inc *incompatibleError
	var unauth *unauthorizedError
	var notServed *notServedError
	var dns *net.DNSError
	var record tls.RecordHeaderError
	var cert *tls.CertificateVerificationError
	var forward interface{ ForwardMessage() string }
	var failed *failedError
	var tooLarge *tooLargeError
	var redirect *safeurl.RedirectError
	switch {
	case errors.As(err, &failed):
		return &refusedError{failed.sentence}
	case errors.As(err, &tooLarge):
		return &refusedError{tooLarge.sentence}
	case errors.As(err, &unauth), errors.As(err, &inc):
		return &refusedError{st.Message}
	case errors.As(err, &redirect):
		return &refusedError{fmt.Sprintf("%s redirected the request to %s, another scheme, host or port, where informtop does not follow (the token would go there too): if the agent answers there, give that address", addr, safeurl.Where(redirect.To))}
	case errors.As(err, &notServed):
		return &refusedError{notServed.sentence}
	case errors.As(err, &record):
		return &refusedError{fmt.Sprintf("%s answers plain HTTP, not TLS: give the address with http:// (or none)", addr)}
	case errors.As(err, &cert):
		return &refusedError{fmt.Sprintf("the TLS certificate of %s is not trusted (%v): give the CA that signed it with --agent-ca-file", addr, cert.Err)}
	case errors.As(err, &forward):
		return &refusedError{fmt.Sprintf("nothing answers at %s (the kubelet said: %s): is the controller running, and the agent's port right?", addr, forward.ForwardMessage())}
	case errors.Is(err, errNotFound):
		return &refusedError{st.LastError}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &refusedError{fmt.Sprintf("nothing listens at %s (connection refused): is the controller running, and its agent serving on that address?", addr)}
	case errors.As(err, &dns) && dns.IsNotFound:
		return &refusedError{fmt.Sprintf("the host of %s does not resolve (%s): check the address", addr, dns.Name)}
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return &refusedError{fmt.Sprintf("%s answers plain HTTP, not TLS: give the address with http:// (or none)", addr)}
	}
	return nil
}
