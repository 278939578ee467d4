package fleet

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// Auth is how the fleet's client proves itself to Prometheus and checks
// Prometheus' certificate. Each non-empty field but User and
// InsecureSkipVerify names an entry of Options.Secrets (its flag), read
// within its budget on every query, so a rotated token, password,
// certificate or CA is picked up without a restart.
type Auth struct {
	BearerToken string // the bearer token's file: "Authorization: Bearer …"
	User        string // basic auth's user name, with Password
	Password    string // basic auth's password file
	CA          string // PEM certificates to trust instead of the system's
	Cert, Key   string // the client certificate and its key (PEM), together
	// InsecureSkipVerify accepts any certificate Prometheus shows.
	InsecureSkipVerify bool
}

// check says which settings do not fit together or name no file.
func (a Auth) check(secrets SecretFiles) error {
	switch {
	case a.BearerToken != "" && a.User != "":
		return errors.New("a bearer token and basic auth are two ways to log in: give one")
	case (a.User == "") != (a.Password == ""):
		return errors.New("basic auth needs a user and a password file: give both, or neither")
	case (a.Cert == "") != (a.Key == ""):
		return errors.New("a client certificate and its key go together: give both, or neither")
	}
	for _, ref := range []string{a.BearerToken, a.Password, a.CA, a.Cert, a.Key} {
		if _, ok := secrets[ref]; ref != "" && !ok {
			return fmt.Errorf("no file is given for %s", ref)
		}
	}
	return nil
}

// authTransport adds Auth's credentials to every request and dials with
// its TLS material, read afresh each time. It is written here rather than
// taken from prometheus/common's HTTP client: that client links
// golang.org/x/net/trace, whose HTML templates make the linker keep every
// exported method of every type in the binary (~30 MB more, most of it
// mapped into every run of the dashboard), and it reads files whole,
// whatever they are.
//
// Invariant: next dials with the TLS material whose bytes are pem.
// mu guards next and pem; RoundTrip is safe for concurrent use.
type authTransport struct {
	auth    Auth
	secrets SecretFiles

	mu   sync.Mutex
	pem  []byte          // CA, certificate and key as last read, one after the other
	next *http.Transport // nil until the first request
}

func newAuthTransport(a Auth, secrets SecretFiles) (*authTransport, error) {
	if err := a.check(secrets); err != nil {
		return nil, fmt.Errorf("the Prometheus client settings do not fit together: %w", err)
	}
	return &authTransport{auth: a, secrets: secrets}, nil
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next, err := t.transport()
	if err == nil {
		req, err = t.withCredentials(req)
	}
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, err
	}
	return next.RoundTrip(req)
}

// withCredentials is a copy of req (a RoundTripper must not change the
// caller's) with the bearer token or basic auth as the files hold them
// now; req itself when Auth has neither.
func (t *authTransport) withCredentials(req *http.Request) (*http.Request, error) {
	switch {
	case t.auth.BearerToken != "":
		token, err := t.secrets.read(t.auth.BearerToken)
		if err != nil {
			return req, err
		}
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+token)
	case t.auth.User != "":
		pw, err := t.secrets.read(t.auth.Password)
		if err != nil {
			return req, err
		}
		req = req.Clone(req.Context())
		req.SetBasicAuth(t.auth.User, pw)
	}
	return req, nil
}

// transport returns the transport for the TLS material as it is now,
// building a new one (and letting the old one's idle connections go)
// when a file changed.
func (t *authTransport) transport() (*http.Transport, error) {
	var material [3][]byte
	for i, ref := range []string{t.auth.CA, t.auth.Cert, t.auth.Key} {
		if ref == "" {
			continue
		}
		s, err := t.secrets.read(ref)
		if err != nil {
			return nil, err
		}
		material[i] = []byte(s)
	}
	joined := bytes.Join(material[:], []byte{0})
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next != nil && bytes.Equal(joined, t.pem) {
		return t.next, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.auth.InsecureSkipVerify}
	if t.auth.CA != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(material[0]) {
			return nil, &secretFileError{fmt.Sprintf("%s %s holds no PEM certificate: give the file holding the CA's certificates (PEM)", t.auth.CA, t.secrets[t.auth.CA].Path)}
		}
		cfg.RootCAs = pool
	}
	if t.auth.Cert != "" {
		pair, err := tls.X509KeyPair(material[1], material[2])
		if err != nil {
			return nil, &secretFileError{fmt.Sprintf("%s %s and %s %s are not a certificate and its key (PEM): %v",
				t.auth.Cert, t.secrets[t.auth.Cert].Path, t.auth.Key, t.secrets[t.auth.Key].Path, err)}
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	next := http.DefaultTransport.(*http.Transport).Clone()
	// As Prometheus' own tools: no proxy unless one is configured, and
	// informtop has no flag for one.
	next.Proxy = nil
	next.TLSClientConfig = cfg
	if t.next != nil {
		t.next.CloseIdleConnections()
	}
	t.next, t.pem = next, joined
	return next, nil
}

// CloseIdleConnections lets the current transport's idle connections go.
func (t *authTransport) CloseIdleConnections() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next != nil {
		t.next.CloseIdleConnections()
	}
}
