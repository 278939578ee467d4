package fleet

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSeries is one series a fake Prometheus answers with.
type fakeSeries struct {
	labels map[string]string
	value  float64
}

// fakeProm answers /api/v1/query as Prometheus' HTTP API does (its JSON
// shapes, POST form or GET), from series keyed by metric name; the up
// query gets up. It records the queries and the Authorization headers.
type fakeProm struct {
	mu      sync.Mutex
	byName  map[string][]fakeSeries
	up      []fakeSeries
	code    int // answer every request with this status when not 0
	queries []string
	auth    []string
	// bodies, when not nil, keeps each query's answer to serve it again
	// (the time aside), so a benchmark measures the client, not the fake.
	bodies map[string][]byte
}

func (p *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.auth = append(p.auth, r.Header.Get("Authorization"))
	if p.code != 0 {
		http.Error(w, http.StatusText(p.code), p.code)
		return
	}
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := r.Form.Get("query")
	p.queries = append(p.queries, q)
	if b, ok := p.bodies[q]; ok {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	at, _ := strconv.ParseFloat(r.Form.Get("time"), 64)
	var ss []fakeSeries
	if strings.HasPrefix(q, "up") {
		ss = p.up
	} else {
		name, _, _ := strings.Cut(q, "{")
		ss = p.byName[name]
	}
	type result struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	res := []result{}
	for _, s := range ss {
		m := map[string]string{}
		if !strings.HasPrefix(q, "up") {
			name, _, _ := strings.Cut(q, "{")
			m["__name__"] = name
		}
		for k, v := range s.labels {
			m[k] = v
		}
		res = append(res, result{Metric: m, Value: [2]any{at, strconv.FormatFloat(s.value, 'f', -1, 64)}})
	}
	body, _ := json.Marshal(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": res}})
	if p.bodies != nil {
		p.bodies[q] = body
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (p *fakeProm) seen() (queries, auth []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.queries...), append([]string(nil), p.auth...)
}

// scrape is a scrape target's labels.
type scrape map[string]string

// informer adds an informer's series (every informer family) to p.
func (p *fakeProm) informer(t scrape, name string, v map[string]float64) {
	for _, f := range families {
		if f.informer == nil {
			continue
		}
		l := labelsOf(t, map[string]string{"name": name, "group": "apps", "version": "v1", "resource": "deployments"})
		p.add(f.metric, l, v[f.metric])
	}
}

// listener adds a listener's series; extra are added as they are (the
// frame of a stalled call, delivered by type).
func (p *fakeProm) listener(t scrape, informer, listener string, v map[string]float64) {
	for _, f := range families {
		if f.listener == nil || f.metric == "informtop_listener_delivered_total" {
			continue
		}
		l := labelsOf(t, map[string]string{"name": informer, "group": "apps", "version": "v1", "resource": "deployments", "listener": listener})
		if f.metric == "informtop_listener_callback_in_progress_seconds" {
			l["frame"] = ""
		}
		p.add(f.metric, l, v[f.metric])
	}
}

func (p *fakeProm) add(metric string, labels map[string]string, v float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byName == nil {
		p.byName = map[string][]fakeSeries{}
	}
	p.byName[metric] = append(p.byName[metric], fakeSeries{labels, v})
}

func (p *fakeProm) scrapes(t scrape, up float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = append(p.up, fakeSeries{labelsOf(t, nil), up})
}

func labelsOf(t scrape, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range t {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// serveProm starts p; the server ends with the test.
func serveProm(t *testing.T, p *fakeProm) string { return serveB(t, p) }

func serveB(t testing.TB, p *fakeProm) string {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// running starts s until the test ends.
func running(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// waitAnswered waits for the first refresh, failing the test on error.
func waitAnswered(t *testing.T, s *Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
}
