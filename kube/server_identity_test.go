package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
