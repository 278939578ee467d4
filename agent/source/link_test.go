package source

import "testing"

// Each state of an informer's link, and the moves between them an outage,
// a 410 and a 403 make, read off its figures.
func TestLinkStates(t *testing.T) {
	const (
		refused = `watch: Get "https://127.0.0.1:6443/api/v1/namespaces/a/configmaps?watch=true": dial tcp 127.0.0.1:6443: connect: connection refused`
		gone    = "watch: too old resource version: 5 (120)"
		denied  = `list: configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "a"`
		server  = "list: the server is currently unable to handle the request"
		// API Priority and Fairness' 429, to a watch and to a list.
		busyWatch = "watch: Too many requests, please try again later."
		busyList  = "list: Too many requests, please try again later."
	)
	for _, tc := range []struct {
		name   string
		s      Informer
		denied bool
		want   Link
	}{
		{"first list", Informer{Started: true, Reflector: Reflector{ListInProgress: true, Lists: 1}}, false, LinkSyncing},
		{"not started", Informer{}, false, LinkSyncing},
		{"watching", Informer{Started: true, Synced: true, Reflector: Reflector{WatchOpen: true}}, false, LinkConnected},
		{"watching again after an outage", Informer{Started: true, Synced: true, Reflector: Reflector{WatchOpen: true, LastError: refused}}, false, LinkConnected},
		{"between two watches", Informer{Started: true, Synced: true}, false, LinkConnected},
		{"the server gone away", Informer{Started: true, Synced: true, Reflector: Reflector{LastError: refused}}, false, LinkWatchDown},
		{"unreachable before the first list", Informer{Started: true, Reflector: Reflector{LastError: refused}}, false, LinkWatchDown},
		{"410 Gone, waiting to list", Informer{Started: true, Synced: true, Reflector: Reflector{LastError: gone}}, false, LinkRelistPending},
		{"a list the server failed", Informer{Started: true, Reflector: Reflector{LastError: server}}, false, LinkRelistPending},
		{"relisting after the 410", Informer{Started: true, Synced: true, Reflector: Reflector{ListInProgress: true, LastError: gone}}, false, LinkSyncing},
		{"429 to a watch: client-go watches again after its backoff", Informer{Started: true, Synced: true, Reflector: Reflector{LastError: busyWatch}}, false, LinkWatchDown},
		{"429 in a watch's stream", Informer{Started: true, Synced: true, Reflector: Reflector{LastError: "watch stream: " + busyWatch[len("watch: "):]}}, false, LinkWatchDown},
		{"429 to a list: client-go lists again after its backoff", Informer{Started: true, Reflector: Reflector{LastError: busyList}}, false, LinkRelistPending},
		{"403 from the server", Informer{Started: true, Reflector: Reflector{LastError: denied}}, false, LinkForbidden},
		{"refused by the access check", Informer{Started: true, Reflector: Reflector{ListInProgress: true}}, true, LinkForbidden},
		{"allowed after all (RBAC changed)", Informer{Started: true, Synced: true, Reflector: Reflector{WatchOpen: true}}, true, LinkConnected},
		{"stopped", Informer{Started: true, Stopped: true, Reflector: Reflector{LastError: refused}}, false, LinkStopped},
	} {
		if got := LinkOf(tc.s, tc.denied); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Errors the API server answered are told from ones where nothing answered.
func TestErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		msg                        string
		unreachable, refused, gone bool
	}{
		{"dial tcp 127.0.0.1:6443: connect: connection refused", true, false, false},
		{`Get "https://10.0.0.1:6443/api": net/http: request canceled (Client.Timeout exceeded while awaiting headers)`, true, false, false},
		{"unexpected EOF", true, false, false},
		{`pods is forbidden: User "jane" cannot watch resource "pods"`, false, true, false},
		{"Unauthorized", false, true, false},
		{"too old resource version: 5 (120)", false, false, true},
		{"The resourceVersion for the provided watch is too old.", false, false, true},
		{"The provided continue parameter is too old to display a consistent list result.", false, false, true},
		{"etcdserver: mvcc: required revision has been compacted", false, false, true},
		{"the server is currently unable to handle the request", false, false, false},
		{"dial tcp 127.0.0.1:41023: connect: connection refused", true, false, false},
	} {
		if u, r, g := Unreachable(tc.msg), Refused(tc.msg), Expired(tc.msg); u != tc.unreachable || r != tc.refused || g != tc.gone {
			t.Errorf("%q: unreachable %t refused %t expired %t; want %t %t %t", tc.msg, u, r, g, tc.unreachable, tc.refused, tc.gone)
		}
	}
}
