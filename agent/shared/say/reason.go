package say

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// DeniedPrefix starts the reason of an informer the access check refused:
// one that will not sync until someone changes RBAC, which the dashboard
// shows as forbidden rather than syncing.
const DeniedPrefix = "denied: "

// watchListWait is how long a streamed initial list may run without its
// initial-events-end bookmark before informtop suggests turning it off.
const watchListWait = 10 * time.Second

// NotSyncedReason says, in one sentence, why an informer has not synced,
// from its snapshot alone; "" when it has. Sources that know more (an RBAC
// check, discovery) say it instead.
func NotSyncedReason(s source.Informer, now time.Time) string {
	if s.Synced {
		return ""
	}
	r := s.Reflector
	if !s.Started {
		return "not started yet"
	}
	if r.LastError != "" && !r.WatchOpen && !r.ListInProgress {
		return ErrorReason(r.LastError, "the last list or watch failed") + retrying(r, now)
	}
	switch {
	case r.ListInProgress && r.WatchOpen && (r.ListStreamed || r.ListPages == 0 && r.Lists > 0):
		// The reflector holds a streamed list's items until the bookmark
		// that ends it, so only its duration is known. (Snapshots from
		// before ListStreamed existed show a stream as a list without pages.)
		d := now.Sub(r.WatchSince).Round(time.Second)
		if d > watchListWait {
			return fmt.Sprintf("the streamed initial list (watch-list) has run %s without its initial-events-end bookmark; a proxy may be dropping bookmarks: try --watch-list off", d)
		}
		return fmt.Sprintf("still streaming the initial list (watch-list), for %s", d)
	case r.ListInProgress:
		return fmt.Sprintf("still listing: %s, %s so far", humanize.Plural(r.ListPages, "page"), humanize.Plural(r.LastListItems, "item"))
	case r.Relists >= 3 && r.LastError != "" && gone(r.LastError):
		return fmt.Sprintf("relisting in a loop: %s after %q; the watch cannot keep up with the server's history", humanize.Plural(r.Relists, "relist"), r.LastError)
	case s.Queue.Depth > 0:
		return fmt.Sprintf("processing the initial list: %s still queued", humanize.Plural(s.Queue.Depth, "item"))
	case r.Lists == 0:
		return "waiting for the first list"
	}
	for _, l := range s.Listeners {
		if !l.Synced {
			return fmt.Sprintf("handler %s is still handling its initial list (%s pending)", l.Name, humanize.Count(l.Pending))
		}
	}
	return "processing the initial list"
}

func retrying(r source.Reflector, now time.Time) string {
	if r.LastErrorTime.IsZero() {
		return "; retrying with backoff"
	}
	return fmt.Sprintf("; retrying with backoff (last attempt %s ago)", humanize.Elapsed(now.Sub(r.LastErrorTime), 100*time.Millisecond))
}

// ErrorReason turns an error from the API server into a sentence saying
// what happened and what to do; an error it does not know follows what,
// e.g. "the last list or watch failed: <error>".
func ErrorReason(msg, what string) string {
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "unauthorized"), strings.Contains(low, " 401"), strings.Contains(low, "provide credentials"):
		return "the API server rejected the credentials (401 Unauthorized): log in again or check --kubeconfig, --token or --user"
	case strings.Contains(low, "forbidden"):
		return "RBAC denies it: " + msg
	case strings.Contains(low, "connection refused"), strings.Contains(low, "no such host"),
		strings.Contains(low, "i/o timeout"), strings.Contains(low, "network is unreachable"),
		strings.Contains(low, "connection reset"), strings.Contains(low, "eof"), strings.Contains(low, "tls:"):
		return "cannot reach the API server: " + msg
	case source.Throttled(msg):
		return TurnedAway("request") + "; client-go waits and asks again"
	case gone(msg):
		return "relist pending: the resourceVersion expired (410 Gone), and client-go lists again after its backoff"
	case strings.Contains(low, "could not find the requested resource"), strings.Contains(low, "the server could not find"):
		return "the server does not serve this resource any more: " + msg
	}
	return what + ": " + msg
}

// TurnedAway says why the API server answered a request (what: "watch",
// "request") with 429 Too Many Requests.
func TurnedAway(what string) string {
	return "the API server turned the " + what + " away (429 Too Many Requests): it is overloaded, or its flow control (kubectl get flowschemas,prioritylevelconfigurations) gives this user a small share"
}

// gone is source.Expired, or any mention of 410 or Gone.
func gone(msg string) bool {
	low := strings.ToLower(msg)
	return source.Expired(msg) || strings.Contains(low, "410") || strings.Contains(low, "gone")
}

// Status says a source's status in one line: its message, else its state,
// when the next attempt comes (measured from now) and the last error, in
// that order, so a narrow header cut short still says when the next
// attempt comes. "" when the source is live with nothing to add.
func Status(s source.Status, now time.Time) string {
	if s.Message != "" {
		return s.Message
	}
	if s.State == source.Live || s.State == "" {
		return ""
	}
	out := string(s.State)
	if !s.NextRetry.IsZero() {
		if d := s.NextRetry.Sub(now).Round(time.Second); d > 0 {
			out += ", retrying in " + d.String()
		} else {
			out += ", retrying"
		}
	}
	if s.LastError != "" {
		out += ": " + s.LastError
	}
	return out
}

// Reason says why inf has not synced: what its source knows better when
// it said so, else what its figures show; "" once it has synced.
func Reason(known source.Reasons, inf source.Informer, now time.Time) string {
	if inf.Synced {
		return ""
	}
	if why := known[inf.Name]; why != "" {
		return why
	}
	return NotSyncedReason(inf, now)
}

// Cause is an error from a list or watch without the verb and the request
// client-go puts first, which name one informer's resource and say
// nothing the sentence around them does not: `watch: Get "https://…":
// dial tcp …: connection refused` is `dial tcp …: connection refused`.
func Cause(msg string) string {
	for _, verb := range []string{"list and watch: ", "list: ", "watch: "} {
		if rest, ok := strings.CutPrefix(msg, verb); ok {
			msg = rest
			break
		}
	}
	return requestPrefix.ReplaceAllString(msg, "")
}

// requestPrefix is `Get "URL": ` as net/http's errors begin.
var requestPrefix = regexp.MustCompile(`^[A-Za-z]+ "[^"]*": `)
