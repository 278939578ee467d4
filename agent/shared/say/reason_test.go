package say

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

func TestNotSyncedReasonSaysWhy(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	started := func(r source.Reflector) source.Informer {
		return source.Informer{Name: "pods", Started: true, Reflector: r}
	}
	for _, tc := range []struct {
		name string
		snap source.Informer
		want []string
	}{
		{"synced", source.Informer{Synced: true}, nil},
		{"not started", source.Informer{}, []string{"not started"}},
		{"forbidden", started(source.Reflector{Lists: 1, LastError: `pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "a"`, LastErrorTime: now.Add(-2 * time.Second)}),
			[]string{"RBAC denies it", `User "u" cannot list`, "retrying with backoff", "2s ago"}},
		{"unauthorized", started(source.Reflector{Lists: 1, LastError: "Unauthorized"}), []string{"401", "credentials"}},
		{"unauthorized, as client-go says it", started(source.Reflector{Lists: 1, LastError: "the server has asked for the client to provide credentials"}), []string{"401", "log in again"}},
		{"unreachable", started(source.Reflector{Lists: 3, LastError: "dial tcp 127.0.0.1:6443: connect: connection refused"}),
			[]string{"cannot reach the API server", "127.0.0.1:6443", "retrying"}},
		{"throttled", started(source.Reflector{Lists: 2, LastError: "list: Too many requests, please try again later."}),
			[]string{"429 Too Many Requests", "flowschemas", "client-go waits and asks again"}},
		{"expired, in etcd's words", started(source.Reflector{Lists: 2, LastError: "The resourceVersion for the provided watch is too old."}),
			[]string{"relist pending", "410 Gone"}},
		{"listing", started(source.Reflector{Lists: 1, ListPages: 7, LastListItems: 700, ListInProgress: true}), []string{"still listing", "7 pages", "700 items"}},
		{"watch-list without bookmark", started(source.Reflector{Lists: 1, ListInProgress: true, WatchOpen: true, WatchSince: now.Add(-30 * time.Second), LastListItems: 12}),
			[]string{"initial-events-end bookmark", "--watch-list off", "30s"}},
		{"watch-list streaming", started(source.Reflector{Lists: 1, ListInProgress: true, WatchOpen: true, WatchSince: now.Add(-2 * time.Second)}),
			[]string{"still streaming the initial list", "2s"}},
		{"streamed relist after paged lists", started(source.Reflector{Lists: 2, Relists: 1, ListPages: 3, ListStreamed: true, ListInProgress: true,
			WatchOpen: true, WatchSince: now.Add(-2 * time.Second)}), []string{"still streaming the initial list", "2s"}},
		{"relist loop", started(source.Reflector{Lists: 5, Relists: 4, WatchOpen: true, LastError: "too old resource version: 5 (9)"}), []string{"relisting in a loop", "4 relists"}},
		{"handler behind", source.Informer{Started: true, Reflector: source.Reflector{Lists: 1, WatchOpen: true},
			Listeners: []source.Listener{{Name: "slow", Pending: 1234}}}, []string{"handler slow", "1,234 pending"}},
	} {
		got := NotSyncedReason(tc.snap, now)
		if tc.want == nil && got != "" {
			t.Errorf("%s: %q, want none", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
	}
}

func TestStatusSentence(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		s    source.Status
		want string
	}{
		{source.Status{State: source.Live}, ""},
		{source.Status{}, ""},
		{source.Status{State: source.Disconnected, Message: "agent gone"}, "agent gone"},
		{source.Status{State: source.Disconnected, LastError: "EOF", NextRetry: now.Add(4 * time.Second)}, "disconnected, retrying in 4s: EOF"},
		{source.Status{State: source.Incompatible, LastError: "agent speaks v9"}, "incompatible: agent speaks v9"},
	} {
		if got := Status(tc.s, now); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
