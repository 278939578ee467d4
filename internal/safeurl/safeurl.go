// Package safeurl keeps credentials in and around URLs where the user put
// them: out of sentences that quote an address, and out of the requests a
// server's redirect asks for.
package safeurl

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Redact returns raw with the password of its user information, if any,
// replaced by xxxxx, as url.URL.Redacted does; raw need not parse, since
// a sentence about an address that does not parse quotes it too, and a
// user name without a password is dropped then (no way to tell them apart).
func Redact(raw string) string {
	// Without "://", user:password@host parses as scheme "user".
	if u, err := url.Parse(raw); err == nil && strings.Contains(raw, "://") {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		scheme, rest = "", raw
	}
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	i := strings.LastIndex(authority, "@")
	if i < 0 {
		return raw
	}
	authority = "xxxxx@" + authority[i+1:]
	if ok {
		return scheme + "://" + authority + path
	}
	return authority + path
}

// RedirectError is a redirect SameOrigin refused: To is where it led.
type RedirectError struct{ From, To *url.URL }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirected to %s, another scheme, host or port, which informtop does not follow: the credentials sent to the first would go to it",
		Origin(e.From), Where(e.To))
}

// SameOrigin is an http.Client's CheckRedirect: it follows up to 10
// redirects to the scheme, host and port of the first request only. Go's
// client keeps the Authorization header on a redirect to another port of
// the same host, and a RoundTripper that adds credentials adds them to
// any request, so a redirect elsewhere would carry them there.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if Origin(req.URL) != Origin(via[0].URL) {
		return &RedirectError{From: via[0].URL, To: req.URL}
	}
	if len(via) >= 10 {
		return fmt.Errorf("stopped after 10 redirects, at %s", Where(req.URL))
	}
	return nil
}

// Origin is scheme://host:port, the port spelled out and the host in
// lower case, so that equal origins compare equal.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Where names u in a sentence: scheme, host and path, without its user
// information or query (a query may carry anything).
func Where(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
