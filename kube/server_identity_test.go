package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
)

// With several API servers, the figures name how many there are and
// their hosts, from the identity leases, beside the one that answered.
func TestAnsweredByNamesTheAPIServers(t *testing.T) {
	lease := func(name, host string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": host}}}
	}
	other := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler", Namespace: "kube-system"}}
	c := fake.NewClientset(lease("apiserver-b", "cp-2"), lease("apiserver-a", "cp-1"), lease("apiserver-c", "cp-3"), other)
	hosts := apiServerHosts(context.Background(), c)
	started := time.Date(2026, 11, 24, 1, 2, 3, 0, time.UTC)
	got := answeredBy("https://lb:6443", started, time.Time{}, hosts)
	want := "https://lb:6443, the kube-apiserver started 2026-11-24 01:02:03 UTC, one of 3 API servers (cp-1, cp-2, cp-3)"
	if got != want {
		t.Fatalf("answeredBy:\n got %s\nwant %s", got, want)
	}
	if got := answeredBy("https://lb:6443", started, started.Add(-time.Hour), nil); !strings.HasSuffix(got, "another API server than at the last read (started 00:02:03), so the counters are this one's own") {
		t.Fatalf("a change of server: %s", got)
	}
	if got := answeredBy("https://lb:6443", time.Time{}, time.Time{}, nil); got != "https://lb:6443" {
		t.Fatalf("without a start time or leases: %s", got)
	}
}

// The identity leases are listed once a minute, not on every scrape.
func TestAPIServersListedOncePerMinute(t *testing.T) {
	lists := 0
	m := &serverMetrics{
		get:       func(context.Context) ([]byte, error) { return []byte("process_start_time_seconds 1.7e9\n"), nil },
		hosts:     func(context.Context) []string { lists++; return []string{"cp-1", "cp-2"} },
		resources: map[string]schema.GroupResource{"configmaps": {Resource: "configmaps"}},
	}
	for range 3 {
		m.scrape(context.Background())
	}
	if lists != 1 || m.stats()["configmaps"].APIServers != 2 {
		t.Fatalf("three scrapes listed the leases %d times (want 1), API servers %d", lists, m.stats()["configmaps"].APIServers)
	}
	if hosts := m.apiServers(context.Background(), time.Now().Add(apiServersEvery+time.Second)); lists != 2 || len(hosts) != 2 {
		t.Fatalf("a minute later the leases were listed %d times in all, want 2", lists)
	}
}
