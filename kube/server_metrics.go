package kube

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// DefaultServerMetricsEvery is how often the API server's /metrics is read
// at most, while someone looks at its figures: even asked for only the
// families informtop reads (scrapedFamilies), a scrape costs the server
// half a megabyte of text and tens of milliseconds of CPU, for every
// informtop open.
const DefaultServerMetricsEvery = 30 * time.Second

// scrapeTimeout bounds one read of /metrics.
const scrapeTimeout = 10 * time.Second

// apiServersEvery is how often the API servers' identity leases are listed
// again: servers join and leave far more rarely than counters move.
const apiServersEvery = time.Minute

// serverMetrics reads what the API server says about the watched
// resources (its watch cache, dispatch, terminated watchers) from its
// /metrics, when the user may get that URL. It only reads.
//
// Locking: mu guards resources, last, read, started, wantedAt, hostList
// and hostsAt; the rest is fixed after newServerMetrics.
type serverMetrics struct {
	get       func(ctx context.Context) ([]byte, error)
	hosts     func(ctx context.Context) []string // the cluster's API servers, nil when unknown
	from      string
	resources map[string]schema.GroupResource // informer name → what it watches; changes with :ns or :svc
	denied    string                          // why the user may not read /metrics; "" when allowed
	forbidden string                          // the sentence for a scrape answered 403
	every     time.Duration                   // the least time between two reads
	// demand holds a token while someone wants the figures: WantServer
	// and waitRead put one, the read loop takes it.
	demand chan struct{}
	// clock times the reads; the real one unless a test sets it.
	clock clock.Clock
	// turned, when set (tests), hears after each turn of the read loop
	// whether it read.
	turned chan<- bool

	mu       sync.Mutex
	wantedAt time.Time // the newest want; a token older than wantFor reads nothing
	last     map[string]source.ServerStats
	read     chan struct{} // closed when last is first set; made on demand
	started  time.Time     // when the API server that answered the last scrape started

	hostList []string  // the API servers' hosts as last listed
	hostsAt  time.Time // when they were listed; zero before the first time
}

// metricsDenied asks, as for the resources, whether the user may get the
// non-resource URL /metrics; it returns the sentence to show when not.
func metricsDenied(ctx context.Context, c kubernetes.Interface, as string) string {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}
	got, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil || got.Status.Allowed {
		return "" // a failed check: the scrape will say what the server answers
	}
	return metricsPermission(as)
}

// metricsPermission is the sentence for a user (as, or "you") who may not
// get /metrics.
func metricsPermission(as string) string {
	who := "you"
	if as != "" {
		who = as
	}
	return fmt.Sprintf("the API server's watch-cache figures need get on the non-resource URL /metrics, which %s may not (RBAC; the ClusterRole system:monitoring grants it)", who)
}

func newServerMetrics(c kubernetes.Interface, from, as, denied string, every time.Duration) *serverMetrics {
	if every <= 0 {
		every = DefaultServerMetricsEvery
	}
	m := &serverMetrics{from: from, denied: denied, forbidden: metricsPermission(as), resources: map[string]schema.GroupResource{},
		every: every, demand: make(chan struct{}, 1), clock: clock.RealClock{}}
	m.get = func(ctx context.Context) ([]byte, error) { return readMetrics(ctx, c) }
	m.hosts = func(ctx context.Context) []string { return apiServerHosts(ctx, c) }
	return m
}

// forbiddenRetryEvery is how often a scrape the server answered 403 is
// tried again: the answer is the same until someone changes RBAC (or an
// authorizer webhook that failed closed recovers), so seldom.
const forbiddenRetryEvery = time.Minute

// wantFor is how long one want keeps the figures wanted. The dashboard
// says it every refresh while the Pipeline view is shown; a reading that
// comes due later than this after the last want, the user having left
// the view, is not made (it used to be, up to a minute after).
const wantFor = 3 * time.Second

// want asks for a reading: the next one the loop may make.
func (m *serverMetrics) want() {
	m.mu.Lock()
	m.wantedAt = m.now()
	m.mu.Unlock()
	select {
	case m.demand <- struct{}{}:
	default: // one is asked for already
	}
}

// run reads /metrics when asked (want), at most every m.every, until ctx
// ends: nobody looking, nothing read. A denied user is never scraped, and
// one the server answers 403 is asked again only every
// forbiddenRetryEvery.
func (m *serverMetrics) run(ctx context.Context) {
	if m.denied != "" {
		return
	}
	var next time.Time // the earliest the next read may start
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.demand:
		}
		if wait := next.Sub(m.now()); wait > 0 {
			t := m.clk().NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
		}
		if !m.stillWanted() {
			m.turn(false)
			continue
		}
		gap := m.every
		if !m.scrape(ctx) {
			if ctx.Err() != nil {
				return
			}
			gap = forbiddenRetryEvery
		}
		next = m.now().Add(gap)
		m.turn(true)
	}
}

// stillWanted reports whether someone asked for the figures within wantFor.
func (m *serverMetrics) stillWanted() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now().Sub(m.wantedAt) <= wantFor
}

func (m *serverMetrics) turn(read bool) {
	if m.turned != nil {
		m.turned <- read
	}
}

func (m *serverMetrics) now() time.Time { return m.clk().Now() }

// clk is the clock, real when none was set (tests that build the struct).
func (m *serverMetrics) clk() clock.Clock {
	if m.clock == nil {
		return clock.RealClock{}
	}
	return m.clock
}

// waitRead asks for a reading and returns once the first scrape has
// ended, read or not, or at once for a denied user, or when ctx ends.
func (m *serverMetrics) waitRead(ctx context.Context) {
	if m.denied != "" {
		return
	}
	m.want()
	m.mu.Lock()
	if m.read == nil {
		m.read = make(chan struct{})
		if m.last != nil {
			close(m.read)
		}
	}
	read := m.read
	m.mu.Unlock()
	select {
	case <-read:
	case <-ctx.Done():
	}
}

// scrape reads /metrics once; false when the server forbids it (asking
// again soon would only be forbidden again) or ctx ended.
func (m *serverMetrics) scrape(ctx context.Context) bool {
	sctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	raw, err := m.get(sctx)
	now := time.Now()
	resources := m.watched()
	out := make(map[string]source.ServerStats, len(resources))
	again := true
	switch {
	case err != nil && ctx.Err() != nil:
		return false
	case apierrors.IsForbidden(err):
		// The access review failed, or the server's authorizer disagrees
		// with it: the 403 is the same answer, so the same sentence.
		again = false
		for name := range resources {
			out[name] = source.ServerStats{Reason: m.forbidden}
		}
	case err != nil:
		for name := range resources {
			out[name] = source.ServerStats{Reason: "the API server's /metrics could not be read: " + say.ErrorReason(err.Error(), "the request failed") + "; retrying in " + humanize.Duration(m.every) + " while the figures are shown", Taken: now}
		}
	default:
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, perr := parser.TextToMetricFamilies(bytes.NewReader(raw))
		started := startedAt(families)
		hosts := m.apiServers(sctx, now)
		m.mu.Lock()
		before := m.started
		if perr == nil {
			m.started = started
		}
		m.mu.Unlock()
		from := answeredBy(m.from, started, before, hosts)
		for name, gr := range resources {
			if perr != nil {
				out[name] = source.ServerStats{Reason: "the API server's /metrics could not be parsed: " + perr.Error(), Taken: now}
				continue
			}
			s := statsOf(families, gr, from, now)
			if !started.IsZero() {
				s.ServerStarted = &started
			}
			s.APIServers = len(hosts)
			out[name] = s
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil && m.read != nil {
		close(m.read)
	}
	m.last = out
	return again
}

// stats is the newest reading per informer; before the first, every
// informer says why there is none yet.
func (m *serverMetrics) stats() map[string]source.ServerStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last != nil {
		return m.last
	}
	reason := "reading the API server's /metrics…"
	if m.denied != "" {
		reason = m.denied
	}
	out := make(map[string]source.ServerStats, len(m.resources))
	for name := range m.resources {
		out[name] = source.ServerStats{Reason: reason}
	}
	return out
}

// watch records which resource an informer watches, or forgets the
// informer with an empty gr; the next reading has it.
func (m *serverMetrics) watch(informer string, gr schema.GroupResource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gr.Empty() {
		delete(m.resources, informer)
		return
	}
	m.resources[informer] = gr
}

// watched copies the informers' resources.
func (m *serverMetrics) watched() map[string]schema.GroupResource {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.resources)
}

// statsOf picks one resource's figures out of kube-apiserver v1.37's
// metrics (names as it exports them; see the README for each).
func statsOf(families map[string]*dto.MetricFamily, gr schema.GroupResource, from string, now time.Time) source.ServerStats {
	match := map[string]string{"group": gr.Group, "resource": gr.Resource}
	sum := func(name string, extra map[string]string) (float64, bool) {
		f, ok := families[name]
		if !ok {
			return 0, false
		}
		total, found := 0.0, false
		for _, m := range f.GetMetric() {
			if !labelsMatch(m.GetLabel(), match) || !labelsMatch(m.GetLabel(), extra) {
				continue
			}
			found = true
			switch {
			case m.GetCounter() != nil:
				total += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				total += m.GetGauge().GetValue()
			case m.GetUntyped() != nil:
				total += m.GetUntyped().GetValue()
			}
		}
		return total, found
	}
	s := source.ServerStats{From: from, Taken: now}
	rv, cached := sum("apiserver_watch_cache_resource_version", nil)
	if !cached {
		s.Reason = "the API server keeps no watch cache for " + gr.String() + " (or has not served a watch of it yet)"
		return s
	}
	s.Available = true
	s.WatchCacheResourceVersion = strconv.FormatFloat(rv, 'f', 0, 64)
	s.WatchCacheCapacity, _ = sum("watch_cache_capacity", nil)
	s.EventsReceived = counter(sum("apiserver_watch_cache_events_received_total", nil))
	s.EventsDispatched = counter(sum("apiserver_watch_cache_events_dispatched_total", nil))
	s.WatchEventsSent = counter(sum("apiserver_watch_events_total", nil))
	s.TerminatedWatchers = counter(sum("apiserver_terminated_watchers_total", nil))
	s.ListsFromCache = counter(sum("apiserver_storage_list_total", map[string]string{"storage": "watchcache"}))
	s.ListsFromStorage = counter(sum("apiserver_storage_list_total", map[string]string{"storage": "etcd"}))
	if f, ok := families["apiserver_watch_list_duration_seconds"]; ok {
		for _, m := range f.GetMetric() {
			if h := m.GetHistogram(); h != nil && labelsMatch(m.GetLabel(), match) {
				s.WatchLists += h.GetSampleCount()
			}
		}
	}
	if f, ok := families["apiserver_watch_events_dispatch_duration_seconds"]; ok {
		var total float64
		var n uint64
		for _, m := range f.GetMetric() {
			if h := m.GetHistogram(); h != nil && labelsMatch(m.GetLabel(), match) && labelsMatch(m.GetLabel(), map[string]string{"stage": "total"}) {
				total, n = total+h.GetSampleSum(), n+h.GetSampleCount()
			}
		}
		if n > 0 {
			s.DispatchLatencyMeanSeconds = total / float64(n)
		}
	}
	return s
}

func counter(v float64, _ bool) uint64 {
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	return uint64(v)
}

func labelsMatch(have []*dto.LabelPair, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, l := range have {
			if l.GetName() == k {
				found = l.GetValue() == v
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// apiServers is the cluster's API servers' hosts, listed again once
// apiServersEvery has passed.
func (m *serverMetrics) apiServers(ctx context.Context, now time.Time) []string {
	m.mu.Lock()
	if !m.hostsAt.IsZero() && now.Sub(m.hostsAt) < apiServersEvery {
		defer m.mu.Unlock()
		return m.hostList
	}
	m.mu.Unlock()
	hosts := m.hosts(ctx)
	m.mu.Lock()
	m.hostList, m.hostsAt = hosts, now
	m.mu.Unlock()
	return hosts
}
