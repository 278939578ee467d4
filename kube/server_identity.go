package kube

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// identityLeaseSelector finds kube-apiserver's identity leases: one per
// API server (per host), in kube-system, while the APIServerIdentity
// feature is on (beta and on by default since v1.26).
const identityLeaseSelector = "apiserver.kubernetes.io/identity=kube-apiserver"

// apiServerHosts lists the hosts of the cluster's API servers from their
// identity leases; nil when they cannot be read (RBAC, an older server).
func apiServerHosts(ctx context.Context, c kubernetes.Interface) []string {
	leases, err := c.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: identityLeaseSelector})
	if err != nil || len(leases.Items) == 0 {
		return nil
	}
	hosts := make([]string, 0, len(leases.Items))
	for _, l := range leases.Items {
		h := l.Labels["kubernetes.io/hostname"]
		if h == "" {
			h = l.Name
		}
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	return hosts
}

// startedAt is the answering API server's start, from its
// process_start_time_seconds; zero when it does not export it.
func startedAt(families map[string]*dto.MetricFamily) time.Time {
	f, ok := families["process_start_time_seconds"]
	if !ok || len(f.GetMetric()) == 0 {
		return time.Time{}
	}
	v := f.GetMetric()[0].GetGauge().GetValue()
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return time.Time{}
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}

// answeredBy says which API server the figures are from: the address
// asked, when the one that answered started, how many there are, and
// whether another answered the previous scrape.
func answeredBy(addr string, started, before time.Time, hosts []string) string {
	out := addr
	if !started.IsZero() {
		out += ", the kube-apiserver started " + started.Format("2006-01-02 15:04:05 UTC")
	}
	if len(hosts) > 1 {
		out += fmt.Sprintf(", one of %d API servers (%s)", len(hosts), strings.Join(hosts, ", "))
	}
	if !before.IsZero() && !started.IsZero() && !started.Equal(before) {
		out += "; another API server than at the last read (started " + before.Format("15:04:05") + "), so the counters are this one's own"
	}
	return out
}
