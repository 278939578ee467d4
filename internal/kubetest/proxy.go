package kubetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// DropProxy stands between a client and the first API server and loses
// chosen watch events on purpose, as a faulty network path or a buggy
// intermediary would: the client's cache drifts from the server without
// any error. Everything else passes through unchanged (and counted, see
// Requests); watch streams are asked for as JSON so the proxy can read them.
type DropProxy struct {
	// Kubeconfig is an admin kubeconfig whose server is the proxy.
	Kubeconfig string
	srv        *httptest.Server

	watches atomic.Int64 // watch responses passed through

	mu       sync.Mutex
	rules    []dropRule     // guarded by mu
	dropped  []string       // guarded by mu: "TYPE namespace/name", in order
	requests map[string]int // guarded by mu: "METHOD path" → requests passed on
}

type dropRule struct{ eventType, namespace, name string }

// DropProxy starts a proxy in front of the first API server for t.
func (c *Cluster) DropProxy(t testing.TB) *DropProxy {
	t.Helper()
	target, err := url.Parse(c.Server())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := &DropProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			if isWatch(r.In) {
				r.Out.Header.Set("Accept", "application/json")
			}
		},
		Transport:      rt,
		FlushInterval:  -1, // every watch event as it comes
		ModifyResponse: p.filter,
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if p.requests == nil {
			p.requests = map[string]int{}
		}
		p.requests[r.Method+" "+r.URL.Path]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	p.Kubeconfig = filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if err := writeKubeconfig(p.Kubeconfig, p.srv.URL, nil, "admin", c.sec.adminToken, ""); err != nil {
		t.Fatal(err)
	}
	return p
}

// DropNext makes the proxy lose the next watch event of eventType
// (ADDED, MODIFIED, DELETED) for the named object.
func (p *DropProxy) DropNext(eventType, namespace, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, dropRule{eventType, namespace, name})
}

// Watches counts the watch streams opened through the proxy.
func (p *DropProxy) Watches() int64 { return p.watches.Load() }

// Requests counts the requests with method for path passed through so
// far, e.g. Requests("GET", "/metrics"): what a client asked, whatever the
// answer.
func (p *DropProxy) Requests(method, path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[method+" "+path]
}

// Dropped lists the events lost so far, as "TYPE namespace/name".
func (p *DropProxy) Dropped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.dropped...)
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

// filter replaces a watch response's body by one without the dropped
// events.
func (p *DropProxy) filter(resp *http.Response) error {
	if !isWatch(resp.Request) || resp.StatusCode != http.StatusOK {
		return nil
	}
	p.watches.Add(1)
	in := resp.Body
	pr, pw := io.Pipe()
	resp.Body = pr
	resp.Header.Del("Content-Length")
	go func() {
		defer in.Close()
		dec := json.NewDecoder(in)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				pw.CloseWithError(err)
				return
			}
			if p.drop(raw) {
				continue
			}
			if _, err := pw.Write(append(raw, '\n')); err != nil {
				return // the client went away
			}
		}
	}()
	return nil
}

// drop reports whether the event matches a rule, using the rule up.
func (p *DropProxy) drop(raw json.RawMessage) bool {
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return false
	}
	md := ev.Object.Metadata
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, r := range p.rules {
		if r == (dropRule{ev.Type, md.Namespace, md.Name}) {
			p.rules = append(p.rules[:i], p.rules[i+1:]...)
			p.dropped = append(p.dropped, fmt.Sprintf("%s %s/%s", ev.Type, md.Namespace, md.Name))
			return true
		}
	}
	return false
}
