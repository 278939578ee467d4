package source

import "strings"

// Link is an informer's connection to the API server in one state: what
// the header, the notes and --once word its failures from. It is read off
// the informer's figures (LinkOf), so every source and view agrees.
type Link string

const (
	// LinkSyncing: listing (the first time or again) with nothing failed since.
	LinkSyncing Link = "syncing"
	// LinkConnected: the watch is open.
	LinkConnected Link = "connected"
	// LinkForbidden: the server, or the access check before it, refuses
	// to let the user list or watch it; it will not sync until someone
	// changes RBAC.
	LinkForbidden Link = "forbidden"
	// LinkRelistPending: the server answered, but not with a watch (410
	// Gone: the resourceVersion is too old; or a list or watch failed on
	// the server's side); the reflector waits out its backoff, then lists
	// again.
	LinkRelistPending Link = "relist pending"
	// LinkWatchDown: the watch is not open and the reflector, holding
	// what it had, watches again from where it was after its backoff: the
	// server cannot be reached, or it asked to be called later (429 Too
	// Many Requests to a watch, which client-go does not answer by
	// listing).
	LinkWatchDown Link = "watch down"
	// LinkStopped: the informer has stopped.
	LinkStopped Link = "stopped"
)

// LinkOf is s's link. denied says an access check the source made
// refused it (the server would answer 403).
func LinkOf(s Informer, denied bool) Link {
	r := s.Reflector
	switch {
	case s.Stopped:
		return LinkStopped
	case denied && !r.WatchOpen:
		return LinkForbidden
	case r.ListInProgress:
		return LinkSyncing
	case r.WatchOpen:
		return LinkConnected
	case r.LastError == "":
		if s.Synced {
			return LinkConnected // between two watches, which follow at once
		}
		return LinkSyncing
	case Refused(r.LastError):
		return LinkForbidden
	case Unreachable(r.LastError), Throttled(r.LastError) && strings.HasPrefix(r.LastError, "watch"):
		return LinkWatchDown
	}
	return LinkRelistPending
}

// Unreachable reports whether an error from a list or watch says the
// server was not reached (nothing answered, the connection broke or timed
// out), as opposed to an answer from it.
func Unreachable(msg string) bool {
	low := strings.ToLower(msg)
	for _, s := range []string{"connection refused", "no such host", "i/o timeout", "network is unreachable",
		"connection reset", "broken pipe", "eof", "tls:", "context deadline exceeded", "client.timeout",
		"no route to host", "http2: client connection lost", "connection lost"} {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// Throttled reports whether an error is the server's 429 Too Many
// Requests (API Priority and Fairness turning a request away): it
// answered, and asks to be called again later.
func Throttled(msg string) bool {
	low := strings.ToLower(msg)
	return strings.Contains(low, "too many requests") || strings.Contains(low, "429")
}

// Refused reports whether an error is the server refusing the user: 403
// Forbidden, or 401 Unauthorized (credentials it does not take).
func Refused(msg string) bool {
	low := strings.ToLower(msg)
	return strings.Contains(low, "forbidden") || strings.Contains(low, "unauthorized") || strings.Contains(low, "403:")
}

// Expired reports whether an error is 410 Gone: the resourceVersion
// watched or listed from is older than the server's history. The watch
// cache says "too old resource version"; a watch or list served by etcd
// directly (after compaction) says "The resourceVersion for the provided
// watch is too old", a stale continue token "… parameter is too old".
func Expired(msg string) bool {
	low := strings.ToLower(msg)
	return strings.Contains(low, "too old resource version") || strings.Contains(low, "is too old") ||
		strings.Contains(low, "has been compacted") || strings.Contains(low, "expired") ||
		strings.Contains(low, "410") && strings.Contains(low, "gone")
}
