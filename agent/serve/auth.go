package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// scope is what a request's credential lets it read.
type scope uint8

const (
	// scopeNone: no valid token where one is needed; refused, 401.
	scopeNone scope = iota
	// scopeAnonymousMetrics: no valid token, but /metrics is served
	// without one (Options.MetricsWithoutToken); anything else, 401.
	scopeAnonymousMetrics
	// scopeMetrics: the metrics token; anything but /metrics, 403.
	scopeMetrics
	// scopeAll: the attach token, or no token configured at all.
	scopeAll
)

// guard tells a request's scope from its bearer token. Invariant: it is
// fixed once built (the tokens are kept as hashes only), so it is read
// without a lock; hasMetrics implies hasAttach, and the two hashes
// differ.
type guard struct {
	hasAttach, hasMetrics bool
	openMetrics           bool // /metrics needs no token
	attach, metrics       [sha256.Size]byte
}

// newGuard keeps the hashes of opts' tokens, which withToken has read
// and checked.
func newGuard(opts Options) guard {
	g := guard{openMetrics: opts.MetricsWithoutToken}
	if opts.Token != "" {
		g.hasAttach, g.attach = true, sha256.Sum256([]byte(opts.Token))
	}
	if opts.MetricsToken != "" {
		g.hasMetrics, g.metrics = true, sha256.Sum256([]byte(opts.MetricsToken))
	}
	return g
}

// scope is the scope of r's credential. It runs before anything else
// looks at the request, so it allocates nothing and takes the same time
// whichever token matches: the presented token is hashed once and its
// hash compared in constant time with both (hashing first hides the
// tokens' lengths too).
func (g *guard) scope(r *http.Request) scope {
	if !g.hasAttach {
		return scopeAll
	}
	if tok, ok := bearer(r); ok {
		sum := hashToken(tok)
		attach := subtle.ConstantTimeCompare(sum[:], g.attach[:])
		metrics := subtle.ConstantTimeCompare(sum[:], g.metrics[:]) & boolInt(g.hasMetrics)
		switch {
		case attach == 1:
			return scopeAll
		case metrics == 1:
			return scopeMetrics
		}
	}
	if g.openMetrics {
		return scopeAnonymousMetrics
	}
	return scopeNone
}

// bearer is the token of r's Authorization header, if it is a bearer one.
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// hashToken is the SHA-256 of tok, hashed from a copy on the stack when
// it fits: []byte(tok) would allocate for any token longer than 32 bytes,
// on every request, before the request is known to be anyone's. A longer
// one (beyond any generated token) is converted, as it would be anyway.
func hashToken(tok string) [sha256.Size]byte {
	var buf [1024]byte
	if len(tok) <= len(buf) {
		return sha256.Sum256(append(buf[:0], tok...))
	}
	return sha256.Sum256([]byte(tok))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
