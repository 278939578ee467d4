package engineserve

import (
	"github.com/informtop/informtop/agent/serve/servetest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
)

// The two tokens' scopes, on every api path, mounted or not: the
// metrics token reads /metrics and is refused everything else with 403
// and a sentence saying why; the attach token reads everything; no token
// or a wrong one, 401. With Token alone, as before there were two, it
// reads everything; with no token configured (loopback, or behind
// controller-runtime's filter, whose Kubernetes token the agent must not
// refuse) nothing is checked.
func TestTokenScopes(t *testing.T) {
	inf := syncedPods(t)
	const attach, metricsTok, kube = "attach-token", "metrics-token", "eyJhbGciOiJSUzI1NiJ9.a-kubernetes-token"
	type want map[string]int // by token: the status of /metrics, and of every other path
	for _, c := range []struct {
		name           string
		opts           serve.Options
		metrics, other want
	}{
		{"two tokens", serve.Options{Token: attach, MetricsToken: metricsTok},
			want{attach: 200, metricsTok: 200, "": 401, "wrong": 401, kube: 401},
			want{attach: 200, metricsTok: 403, "": 401, "wrong": 401, kube: 401}},
		{"the attach token alone", serve.Options{Token: attach},
			want{attach: 200, metricsTok: 401, "": 401},
			want{attach: 200, metricsTok: 401, "": 401}},
		{"metrics without a token", serve.Options{Token: attach, MetricsWithoutToken: true},
			want{attach: 200, "": 200, "wrong": 200},
			want{attach: 200, "": 401, "wrong": 401}},
		{"no token", serve.Options{},
			want{attach: 200, "": 200, kube: 200},
			want{attach: 200, "": 200, kube: 200}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.RequestsPerSecond = -1 // many requests, none waits
			h, err := NewHandler(c.opts, inf)
			if err != nil {
				t.Fatal(err)
			}
			for prefix, mounted := range mounts(h) {
				srv := httptest.NewServer(mounted)
				for _, p := range apiPaths {
					statuses := c.other
					if p == api.PathMetrics {
						statuses = c.metrics
					}
					for token, status := range statuses {
						resp, body := servetest.Do(t, srv, http.MethodGet, prefix+p, token)
						what := "GET " + prefix + p + " with token " + token
						if resp.StatusCode != status {
							t.Errorf("%s: %d %s, want %d", what, resp.StatusCode, body, status)
							continue
						}
						checkRefusal(t, what, resp, body)
					}
				}
				srv.Close()
			}
		})
	}
}

// checkRefusal checks what a 401 or 403 says: its fixed sentence, its
// challenge, and the version header only where the caller could read it
// on /metrics anyway (403: the metrics token).
func checkRefusal(t *testing.T, what string, resp *http.Response, body []byte) {
	t.Helper()
	var sentence, challenge, version string
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		sentence, challenge = serve.SentenceUnauthorized, `Bearer realm="informtop"`
	case http.StatusForbidden:
		sentence, challenge, version = serve.SentenceMetricsOnly, `Bearer realm="informtop", error="insufficient_scope"`, api.Version
	default:
		return
	}
	if got := servetest.ErrorSentence(t, body); got != sentence {
		t.Errorf("%s: %q, want %q", what, got, sentence)
	}
	if got := resp.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("%s: WWW-Authenticate %q, want %q", what, got, challenge)
	}
	if got := resp.Header.Get(api.VersionHeader); got != version {
		t.Errorf("%s: %s %q, want %q", what, api.VersionHeader, got, version)
	}
}

// The metrics token is refused before the method and the path are looked
// at, as a caller without a token is: whatever it asks beyond /metrics,
// 403, so it learns neither which paths exist nor which methods.
func TestMetricsTokenLearnsNoPaths(t *testing.T) {
	h, err := NewHandler(serve.Options{Token: "attach-token", MetricsToken: "metrics-token", RequestsPerSecond: -1}, syncedPods(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := serveHandler(t, h, nil)
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/nope", http.StatusForbidden},
		{http.MethodGet, "/informtop/v1/nope", http.StatusForbidden},
		{http.MethodPost, api.PathFrame, http.StatusForbidden},
		{http.MethodGet, "/metrics/../informtop/v1/frame", http.StatusForbidden},
		{http.MethodGet, "/informtop/v1/entries?informer=pods&x=/metrics", http.StatusForbidden},
		{http.MethodPost, api.PathMetrics, http.StatusMethodNotAllowed},
		{http.MethodHead, api.PathMetrics, http.StatusOK},
		{http.MethodGet, "/debug/informtop/informtop/v1/../../metrics", http.StatusOK},
	} {
		resp, body := servetest.Do(t, srv, c.method, c.path, "metrics-token")
		what := c.method + " " + c.path
		if resp.StatusCode != c.status {
			t.Errorf("%s with the metrics token: %d %s, want %d", what, resp.StatusCode, body, c.status)
		}
		checkRefusal(t, what, resp, body)
	}
}

// The metrics token's options: read from a file as the attach token is,
// and refused where it would guard nothing or the wrong thing.
func TestMetricsTokenOptions(t *testing.T) {
	inf := syncedPods(t)
	path := filepath.Join(t.TempDir(), "metrics-token")
	if err := os.WriteFile(path, []byte("metrics-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := server(t, serve.Options{Token: "attach-token", MetricsTokenFile: path}, inf)
	if status, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "metrics-token"); status != http.StatusOK {
		t.Errorf("/metrics with the file's token: %d %s", status, body)
	}
	if status, _ := servetest.Get(t, srv, http.MethodGet, api.PathFrame, "metrics-token"); status != http.StatusForbidden {
		t.Errorf("a frame with the file's metrics token: %d, want 403", status)
	}
	if addr, err := serve.CheckAddr("0.0.0.0:0", serve.Options{Token: "attach-token", MetricsWithoutToken: true}); err != nil || addr != "0.0.0.0:0" {
		t.Errorf("CheckAddr on every address with the attach token and /metrics open: %q, %v", addr, err)
	}
	for _, c := range []struct {
		opts serve.Options
		want string
	}{
		{serve.Options{MetricsToken: "m"}, "Options.MetricsToken is set without Options.Token"},
		{serve.Options{MetricsTokenFile: path}, "Options.MetricsToken is set without Options.Token"},
		{serve.Options{Token: "same", MetricsToken: "same"}, "Options.MetricsToken is Options.Token"},
		{serve.Options{Token: "metrics-token", MetricsTokenFile: path}, "Options.MetricsToken is Options.Token"},
		{serve.Options{Token: "a", MetricsToken: "m", MetricsTokenFile: path}, "both Options.MetricsToken and Options.MetricsTokenFile"},
		{serve.Options{Token: "a", MetricsToken: "m", MetricsWithoutToken: true}, "Options.MetricsToken would guard nothing"},
		{serve.Options{Token: "a", MetricsToken: "m\n"}, "Options.MetricsToken: the token holds a control character"},
		{serve.Options{Token: "a", MetricsTokenFile: filepath.Join(t.TempDir(), "missing")}, "Options.MetricsTokenFile: the token file"},
	} {
		if _, err := NewHandler(c.opts, inf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewHandler(%+v): %v, want %q", c.opts, err, c.want)
		}
		if _, err := serve.CheckAddr("127.0.0.1:0", c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckAddr(%+v): %v, want %q", c.opts, err, c.want)
		}
	}
}

// /metrics and the attach paths spend separate budgets: 300 scrapers
// asking as fast as they are answered (with the metrics token, or with
// the attach token, as a Prometheus given the only token there was) or a
// flood of the metrics token refused on the caches leave an attached
// dashboard every frame it asks for; 300 attached clients leave a
// scraper every scrape.
func TestFloodsOfOneKindCannotStarveTheOther(t *testing.T) {
	inf := syncedPods(t)
	const attach, metricsTok = "attach-token", "metrics-token"
	for _, c := range []struct {
		name         string
		flood        func() *http.Request
		floodAnswers int // the status the flood is answered, besides 503
		client       func() *http.Request
		n            int // more than the client's budget's burst (75 or 25), so some wait their turn
	}{
		{"scrapers with the metrics token", withToken(api.PathMetrics, metricsTok), http.StatusOK, withToken(api.PathFrame, attach), 100},
		{"scrapers with the attach token", withToken(api.PathMetrics, attach), http.StatusOK, withToken(api.PathFrame, attach), 100},
		{"the metrics token on the caches", withToken(api.PathCut+"?informer=pods", metricsTok), http.StatusForbidden, withToken(api.PathFrame, attach), 100},
		{"attached clients", withToken(api.PathFrame, attach), http.StatusOK, withToken(api.PathMetrics, metricsTok), 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewHandler(serve.Options{Token: attach, MetricsToken: metricsTok}, inf) // the default bound
			if err != nil {
				t.Fatal(err)
			}
			f := startFlood(t, h, 300, c.flood)
			got, median := asks(h, c.n, c.client)
			flooded := f.stop()
			t.Logf("the client's %d asks: %v (median %v); the flood's answers: %v", c.n, got, median, flooded)
			if got[http.StatusOK] != c.n {
				t.Errorf("the client got %d of its %d answers under the flood (answers %v), want every one", got[http.StatusOK], c.n, got)
			}
			delete(flooded, http.StatusServiceUnavailable)
			if len(flooded) != 1 || flooded[c.floodAnswers] == 0 {
				t.Errorf("the flood was answered %v besides 503s, want %d only", flooded, c.floodAnswers)
			}
		})
	}
}
