package engineserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
)

// apiPaths is every path of package api, with the query a 200 needs.
var apiPaths = []string{
	api.PathFrame,
	api.PathReport,
	api.PathEntries + "?informer=pods",
	api.PathGeneration + "?informer=pods",
	api.PathObject + "?informer=pods&key=default/a",
	api.PathIndex + "?informer=pods",
	api.PathCut + "?informer=pods",
	api.PathMetrics,
}

// mounts serve one handler the ways a controller mounts it: as the
// server's handler (Serve), under a prefix of a ServeMux as is (as
// controller-runtime's metrics server mounts ExtraHandlers), and under a
// prefix through http.StripPrefix. Each maps a mount to the prefix its
// clients put before the api paths.
func mounts(h http.Handler) map[string]http.Handler {
	asIs := http.NewServeMux()
	asIs.Handle("/debug/informtop/", h)
	stripped := http.NewServeMux()
	stripped.Handle("/ctrl/agent/", http.StripPrefix("/ctrl/agent", h))
	return map[string]http.Handler{"": h, "/debug/informtop": asIs, "/ctrl/agent": stripped}
}

// syncedPods is a running informer named pods holding pod a.
func syncedPods(t *testing.T) *engine.Informer {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t, pod("a")), &corev1.Pod{}, engine.Options{Name: "pods"})
	startInformer(t, inf)
	waitfor.True(t, "the pods informer to sync", inf.HasSynced)
	return inf
}

// Every api path is served under any prefix, and as the server's own
// handler, to GET and HEAD alike (a HEAD without the body).
func TestHandlerMountsUnderAnyPrefix(t *testing.T) {
	h, err := NewHandler(serve.Options{RequestsPerSecond: -1}, syncedPods(t)) // no bound: many requests, none waits
	if err != nil {
		t.Fatal(err)
	}
	for prefix, mounted := range mounts(h) {
		srv := httptest.NewServer(mounted)
		for _, p := range apiPaths {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				resp, body := servetest.Do(t, srv, method, prefix+p, "")
				what := method + " " + prefix + p
				if resp.StatusCode != http.StatusOK || resp.Header.Get(api.VersionHeader) != api.Version {
					t.Errorf("%s: %d with version %q: %s", what, resp.StatusCode, resp.Header.Get(api.VersionHeader), body)
				}
				if (method == http.MethodHead) != (len(body) == 0) {
					t.Errorf("%s: %d bytes of body", what, len(body))
				}
			}
		}
		srv.Close()
	}
}

// Any method but GET and HEAD, on any path, mounted or not, is answered
// 405 with Allow, the read-only sentence and no version header; so is an
// unknown path, which a refusal does not tell apart from a served one.
func TestOtherMethodsAre405WithAllow(t *testing.T) {
	h, err := NewHandler(serve.Options{RequestsPerSecond: -1}, syncedPods(t)) // no bound: many requests, none waits
	if err != nil {
		t.Fatal(err)
	}
	for prefix, mounted := range mounts(h) {
		srv := httptest.NewServer(mounted)
		for _, p := range append([]string{"/nope", "/informtop/v1/nope"}, apiPaths...) {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, "BREW"} {
				resp, body := servetest.Do(t, srv, method, prefix+p, "")
				what := method + " " + prefix + p
				if resp.StatusCode != http.StatusMethodNotAllowed || servetest.ErrorSentence(t, body) != serve.SentenceReadOnly {
					t.Errorf("%s: %d %s, want 405 %q", what, resp.StatusCode, body, serve.SentenceReadOnly)
				}
				if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
					t.Errorf("%s: Allow %q, want \"GET, HEAD\"", what, allow)
				}
				if v, ok := resp.Header[http.CanonicalHeaderKey(api.VersionHeader)]; ok {
					t.Errorf("%s: the refusal carries %s: %q", what, api.VersionHeader, v)
				}
			}
		}
		srv.Close()
	}
}

// A GET of a path the agent does not serve is 404 with the version
// header and a sentence naming the path asked and the paths served;
// only a path ending in an api path is one, whatever comes before.
func TestUnknownPathsAre404(t *testing.T) {
	h, err := NewHandler(serve.Options{RequestsPerSecond: -1}, syncedPods(t)) // no bound: many requests, none waits
	if err != nil {
		t.Fatal(err)
	}
	for prefix, mounted := range mounts(h) {
		srv := httptest.NewServer(mounted)
		for _, p := range []string{
			"/nope",
			"/informtop/v1/nope",
			"/informtop/v1/frame/more",
			"/informtop/v1/frame/",
			"/informtop/v1/store",
			"/informtop/v2/frame",
			"/metrics/more",
			"/informtop/v1/framed",
			"/xinformtop/v1/frame/x",
		} {
			what := "GET " + prefix + p
			resp, body := servetest.Do(t, srv, http.MethodGet, prefix+p, "")
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get(api.VersionHeader) != api.Version {
				t.Errorf("%s: %d with version %q: %s", what, resp.StatusCode, resp.Header.Get(api.VersionHeader), body)
				continue
			}
			msg := servetest.ErrorSentence(t, body)
			asked := prefix + p
			if prefix == "/ctrl/agent" {
				asked = p // StripPrefix took it off before the handler saw it
			}
			if !strings.Contains(msg, "serves no "+asked+";") || !strings.Contains(msg, api.PathFrame) || !strings.Contains(msg, api.PathMetrics) {
				t.Errorf("%s: %q names neither the path asked nor those served", what, msg)
			}
		}
		srv.Close()
	}
}
