package fleet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// A redirect from Prometheus to another port of the same host (or another
// scheme or host) is not followed: the bearer token never reaches it, and
// the sentence names where the redirect led, also when nothing listens
// there. A redirect within the same origin is followed, token and all.
func TestFleetFollowsNoRedirectToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string // Authorization headers the other port got
	other := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hc := Auth{BearerToken: "--bearer-token-file"}
	secrets := SecretFiles{"--bearer-token-file": {Flag: "--bearer-token-file", Path: tok, Limit: MaxTokenFileBytes, Token: true, What: "the bearer token"}}
	redirecting := func(to string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to+r.URL.Path+"?"+r.URL.RawQuery, http.StatusFound)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for name, to := range map[string]string{"another port": other.URL, "a port where nothing listens": closed} {
		t.Run(name, func(t *testing.T) {
			from := redirecting(to)
			s := newSource(t, Options{URL: from, Auth: hc, Secrets: secrets})
			running(t, s)
			err := s.WaitSynced(context.Background())
			want := "Prometheus at " + from + " redirected the query to " + to + "/api/v1/query, another scheme, host or port, where informtop does not follow"
			if !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), want) {
				t.Errorf("WaitSynced: %v; want ErrUnreachable saying %q", err, want)
			}
		})
	}
	mu.Lock()
	if len(elsewhere) > 0 {
		t.Errorf("the other port got %d requests, with Authorization %q; want none", len(elsewhere), elsewhere)
	}
	mu.Unlock()

	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1"}
	p.scrapes(tg, 1)
	p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	mux := http.NewServeMux()
	mux.Handle("/inner/", http.StripPrefix("/inner", p))
	mux.HandleFunc("/api/v1/query", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/inner/api/v1/query?"+r.URL.RawQuery, http.StatusFound)
	})
	same := httptest.NewServer(mux)
	t.Cleanup(same.Close)
	s := newSource(t, Options{URL: same.URL, Auth: hc, Secrets: secrets})
	running(t, s)
	waitAnswered(t, s)
	if _, auth := p.seen(); len(auth) == 0 || auth[0] != "Bearer s3cret" {
		t.Errorf("after a redirect within the origin, Authorization %q; want the token", auth)
	}
}

// A password in --prometheus is refused and never repeated.
func TestFleetNeverRepeatsAPasswordInTheURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:PASSWORD@prometheus:9090": `"http://user:xxxxx@prometheus:9090": give the URL without user`,
		"http://user:PASS%zz@prometheus:9090":  `"http://xxxxx@prometheus:9090" is not a URL`,
		"ftp://user:PASSWORD@prometheus:9090":  `"ftp://user:xxxxx@prometheus:9090": Prometheus speaks http or https`,
	} {
		_, err := New(Options{URL: raw})
		if err == nil || strings.Contains(err.Error(), "PASS") || !strings.Contains(err.Error(), want) {
			t.Errorf("--prometheus %s: %v; want %q without the password", raw, err, want)
		}
	}
}

// --prometheus's path prefix stays in front of the query API's path, as
// Thanos or a proxy serve it.
func TestFleetAsksUnderThePathPrefix(t *testing.T) {
	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1"}
	p.scrapes(tg, 1)
	p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	mux := http.NewServeMux()
	mux.Handle("/thanos/prometheus/", http.StripPrefix("/thanos/prometheus", p))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := newSource(t, Options{URL: srv.URL + "/thanos/prometheus/"})
	running(t, s)
	waitAnswered(t, s)
	if f := s.Pull(0, 0); len(f.Processes) != 1 {
		t.Errorf("processes %+v, want the one under the prefix", f.Processes)
	}
}
