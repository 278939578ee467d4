package cluster

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// generator makes realistic objects. All randomness comes from one seeded
// source, so the same sequence of calls yields the same objects. It is used
// only under Cluster.mu.
type generator struct {
	rng        *rand.Rand
	clock      clock.PassiveClock
	namespaces []string
	backdate   bool // set by Populate: creation times spread over the past

	replicaSets map[string]*replicaSet // "ns/app" -> shared pod template parts
}

func newGenerator(seed int64, clk clock.PassiveClock, namespaces []string) *generator {
	return &generator{
		rng:         rand.New(rand.NewPCG(uint64(seed), 0x1f0c_7a3d_9e2b_4c61)),
		clock:       clk,
		namespaces:  namespaces,
		replicaSets: make(map[string]*replicaSet),
	}
}

// app is one entry of the workload catalog that names and labels objects.
type app struct {
	name, tier, team, image string
	port                    int32
}

var (
	systemApps = []app{
		{"coredns", "system", "platform", "registry.k8s.io/coredns/coredns:v1.12.1", 53},
		{"metrics-server", "system", "platform", "registry.k8s.io/metrics-server/metrics-server:v0.8.0", 10250},
		{"kube-state-metrics", "system", "sre", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0", 8080},
	}
	monitoringApps = []app{
		{"prometheus", "observability", "sre", "quay.io/prometheus/prometheus:v3.5.0", 9090},
		{"alertmanager", "observability", "sre", "quay.io/prometheus/alertmanager:v0.28.1", 9093},
		{"grafana", "observability", "sre", "docker.io/grafana/grafana:12.1.0", 3000},
		{"loki", "observability", "sre", "docker.io/grafana/loki:3.5.3", 3100},
	}
	businessApps = []app{
		{"frontend", "frontend", "growth", "registry.example.com/shop/frontend", 8080},
		{"api-gateway", "frontend", "platform", "registry.example.com/platform/api-gateway", 8443},
		{"checkout", "backend", "commerce", "registry.example.com/shop/checkout", 8080},
		{"cart", "backend", "commerce", "registry.example.com/shop/cart", 8080},
		{"catalog", "backend", "search", "registry.example.com/shop/catalog", 8080},
		{"payments-api", "backend", "payments", "registry.example.com/pay/payments-api", 8443},
		{"ledger", "backend", "payments", "registry.example.com/pay/ledger", 9000},
		{"billing-worker", "worker", "payments", "registry.example.com/pay/billing-worker", 9102},
		{"search-indexer", "worker", "search", "registry.example.com/search/indexer", 9102},
		{"recommendations", "backend", "growth", "registry.example.com/ml/recommendations", 8080},
		{"notification-hub", "worker", "growth", "registry.example.com/shop/notification-hub", 8080},
		{"redis-cache", "cache", "platform", "docker.io/library/redis:7.4.5", 6379},
		{"postgres-exporter", "database", "sre", "quay.io/prometheuscommunity/postgres-exporter:v0.17.1", 9187},
		{"inventory", "backend", "commerce", "registry.example.com/shop/inventory", 8080},
		{"shipping", "backend", "commerce", "registry.example.com/shop/shipping", 8080},
	}
)

// appsFor returns the catalog of apps that live in a namespace.
func appsFor(ns string) []app {
	switch ns {
	case "kube-system":
		return systemApps
	case "monitoring":
		return monitoringApps
	default:
		return businessApps
	}
}

// imageOf returns an app's image at a version; catalog entries that pin
// their own tag keep it.
func (a app) imageOf(version string) string {
	for i := len(a.image) - 1; i >= 0 && a.image[i] != '/'; i-- {
		if a.image[i] == ':' {
			return a.image
		}
	}
	return a.image + ":" + version
}

func (g *generator) pick(n int) int { return g.rng.IntN(n) }

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) namespace() string { return g.namespaces[g.pick(len(g.namespaces))] }

func (g *generator) app(ns string) app {
	apps := appsFor(ns)
	return apps[g.pick(len(apps))]
}

func (g *generator) version() string {
	return fmt.Sprintf("v%d.%d.%d", 1+g.pick(3), g.pick(20), g.pick(10))
}

// suffixChars are the characters Kubernetes uses for generated name suffixes
// (no vowels, no look-alike digits).
const suffixChars = "bcdfghjklmnpqrstvwxz2456789"

func (g *generator) suffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = suffixChars[g.pick(len(suffixChars))]
	}
	return string(b)
}

// templateHash derives a stable pod-template-hash for an app in a namespace,
// so pods of the same app share one ReplicaSet name across a run.
func templateHash(ns, name string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(ns + "/" + name))
	v := h.Sum64()
	b := make([]byte, 10)
	for i := range b {
		b[i] = suffixChars[v%uint64(len(suffixChars))]
		v /= uint64(len(suffixChars))
	}
	return string(b)
}

func (g *generator) uid() types.UID {
	hi, lo := g.rng.Uint64(), g.rng.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff))
}

// now is the server's time at API precision (seconds, as serialized).
func (g *generator) now() metav1.Time {
	return metav1.NewTime(g.clock.Now().Truncate(time.Second))
}

// past returns a creation time up to maxAge ago, skewed towards recent.
func (g *generator) past(maxAge time.Duration) metav1.Time {
	f := g.rng.Float64()
	age := time.Duration(f * f * float64(maxAge))
	return metav1.NewTime(g.clock.Now().Add(-age).Truncate(time.Second))
}

// uniqueName tries name first, then name-2, name-3, ... until free.
func uniqueName(ns, name string, taken func(string) bool) string {
	if !taken(ns + "/" + name) {
		return name
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s-%d", name, i)
		if !taken(ns + "/" + n) {
			return n
		}
	}
}

func appLabels(a app) map[string]string {
	return map[string]string{
		"app":                          a.name,
		"tier":                         a.tier,
		"team":                         a.team,
		"app.kubernetes.io/name":       a.name,
		"app.kubernetes.io/managed-by": "informtop-demo",
	}
}

func copyLabels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in)+2)
	for k, v := range in {
		out[k] = v
	}
	return out
}

// created is the creation time of a new object: now, or while populating a
// time in the past, so ages look like a long-running cluster's.
func (g *generator) created() metav1.Time {
	if g.backdate {
		return g.past(30 * 24 * time.Hour)
	}
	return g.now()
}
