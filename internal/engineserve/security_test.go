package engineserve

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
)

func TestTokenIsRequiredWhenSet(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	srv := server(t, serve.Options{Token: "s3cret-token"}, inf)
	for _, path := range []string{api.PathFrame, api.PathMetrics, api.PathEntries + "?informer=pods", "/nope"} {
		status, body := servetest.Get(t, srv, http.MethodGet, path, "")
		if status != http.StatusUnauthorized || !strings.Contains(servetest.ErrorSentence(t, body), "Bearer") {
			t.Errorf("%s without a token: %d %s", path, status, body)
		}
		if status, body = servetest.Get(t, srv, http.MethodGet, path, "wrong"); status != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d %s", path, status, body)
		}
	}
	if status, body := servetest.Get(t, srv, http.MethodGet, api.PathFrame, "s3cret-token"); status != http.StatusOK {
		t.Errorf("with the token: %d %s", status, body)
	}
	if status, _ := servetest.Get(t, srv, http.MethodGet, api.PathFrame, "s3cret-token-longer"); status != http.StatusUnauthorized {
		t.Errorf("a token with the right prefix was accepted: %d", status)
	}
}

func TestOnlyGetIsAllowedAndUnknownThingsAre404(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	srv := server(t, serve.Options{Token: "t"}, inf)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		if status, body := servetest.Get(t, srv, m, api.PathFrame, "t"); status != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d %s", m, status, body)
		} else {
			servetest.ErrorSentence(t, body)
		}
	}
	if status, body := servetest.Get(t, srv, http.MethodHead, api.PathFrame, "t"); status != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD: %d, %d bytes", status, len(body))
	}
	if status, body := servetest.Get(t, srv, http.MethodGet, "/informtop/v1/nope", "t"); status != http.StatusNotFound {
		t.Errorf("unknown path: %d %s", status, body)
	} else {
		servetest.ErrorSentence(t, body)
	}
	status, body := servetest.Get(t, srv, http.MethodGet, api.PathEntries+"?informer=configmaps", "t")
	if msg := servetest.ErrorSentence(t, body); status != http.StatusNotFound || !strings.Contains(msg, `"configmaps"`) || !strings.Contains(msg, "pods") {
		t.Errorf("unknown informer: %d %s", status, msg)
	}
	if status, body := servetest.Get(t, srv, http.MethodGet, api.PathObject+"?informer=pods&key=default/x", "t"); status != http.StatusNotFound {
		t.Errorf("uncached key: %d %s", status, body)
	}
	if status, body := servetest.Get(t, srv, http.MethodGet, api.PathFrame+"?cursor=minus", "t"); status != http.StatusBadRequest {
		t.Errorf("bad cursor: %d %s", status, body)
	}
}

func TestHandlerMountsUnderAPrefix(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	srv := server(t, serve.Options{}, inf)
	var fr api.Frame
	servetest.GetJSON(t, srv, "/debug"+api.PathFrame, &fr)
	if len(fr.Snapshots) != 1 {
		t.Errorf("snapshots = %d", len(fr.Snapshots))
	}
}

func TestNewHandlerRefusesDuplicateAndNilInformers(t *testing.T) {
	a := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	b := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	if _, err := NewHandler(serve.Options{}, a, b); err == nil || !strings.Contains(err.Error(), "pods") {
		t.Errorf("duplicate names: %v", err)
	}
	if _, err := NewHandler(serve.Options{}, a, nil); err == nil {
		t.Error("a nil informer was accepted")
	}
}

func TestSecretDataNeverLeaves(t *testing.T) {
	f := newFixture(t, 1024, engine.Options{Instrumentation: engine.Instrumentation{ItemEvents: true}})
	srv := server(t, serve.Options{}, f.pods, f.secrets)

	var obj source.Object
	servetest.GetJSON(t, srv, api.PathObject+"?informer=secrets&key="+url.QueryEscape("default/db"), &obj)
	if obj.Kind != "Secret" || !strings.Contains(obj.YAML, "redacted") {
		t.Errorf("secret object = %+v", obj)
	}
	var entries api.StoreEntries
	servetest.GetJSON(t, srv, api.PathEntries+"?informer=secrets", &entries)
	if len(entries.Entries) != 1 || entries.Entries[0].Key != "default/db" || entries.Generation == 0 {
		t.Errorf("entries = %+v", entries)
	}
	noSecretIn(t, srv, []string{
		api.PathObject + "?informer=secrets&key=default/db",
		api.PathEntries + "?informer=secrets",
		api.PathIndex + "?informer=secrets",
		api.PathFrame,
		api.PathFrame + "?cursor=1",
		api.PathReport,
		api.PathMetrics,
	}, secretValue, secretBase64)
}

// noSecretIn GETs every path (each must answer 200) and fails the test for
// each of secrets found in an answer; it returns the answers by path.
func noSecretIn(t *testing.T, srv *httptest.Server, paths []string, secrets ...string) map[string][]byte {
	t.Helper()
	bodies := make(map[string][]byte, len(paths))
	for _, path := range paths {
		status, body := servetest.Get(t, srv, http.MethodGet, path, "")
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		for _, s := range secrets {
			if bytes.Contains(body, []byte(s)) {
				t.Errorf("%s carries the secret %q", path, s)
			}
		}
		bodies[path] = body
	}
	return bodies
}

func TestStoreEndpoints(t *testing.T) {
	f := newFixture(t, 1024, engine.Options{})
	srv := server(t, serve.Options{}, f.pods, f.secrets)

	var gen api.StoreGeneration
	servetest.GetJSON(t, srv, api.PathGeneration+"?informer=pods", &gen)
	if want := local.InformerStore(f.pods).Generation(); gen.Generation != want {
		t.Errorf("generation %d, want %d", gen.Generation, want)
	}
	var entries api.StoreEntries
	servetest.GetJSON(t, srv, api.PathEntries+"?informer=pods", &entries)
	if len(entries.Entries) != 3 || entries.Entries[0].Key != "default/a" || entries.Entries[0].Labels["app"] != "web" {
		t.Errorf("entries = %+v", entries.Entries)
	}
	var obj source.Object
	servetest.GetJSON(t, srv, api.PathObject+"?informer=pods&key=default/b", &obj)
	if obj.Key != "default/b" || obj.Kind != "Pod" || !obj.HasMetadata || obj.IndexEntries["namespace"][0] != "default" {
		t.Errorf("object = %+v", obj)
	}
	for path, want := range map[string]string{
		api.PathIndex + "?informer=pods":                                   "namespace",
		api.PathIndex + "?informer=pods&index=namespace":                   "default",
		api.PathIndex + "?informer=pods&index=namespace&value=default":     "default/a,default/b,default/c",
		api.PathIndex + "?informer=secrets":                                "",
		api.PathIndex + "?informer=pods&index=namespace&value=kube-system": "",
	} {
		var idx api.StoreIndex
		body := servetest.GetJSON(t, srv, path, &idx)
		if got := strings.Join(idx.Items, ","); got != want || idx.Items == nil {
			t.Errorf("%s = %s, want %q", path, body, want)
		}
	}
}

// A handler that writes into a cached Secret is reported by the engine's
// cache-mutation attribution (listener figures, an event): neither the
// secret it overwrote nor the one it wrote reaches any answer.
func TestSecretDataNeverLeavesThroughCacheMutationReports(t *testing.T) {
	const written = "swordfish-written-by-a-handler"
	ring := instr.NewRing(1024)
	// The handler's write races with whatever reads the cached Secret
	// meanwhile (that is the bug it stands for), so nothing reads it until
	// the write is done: the test waits for wrote before its first
	// snapshot, and the upkeep, which samples cached objects for their
	// size at any time, is off.
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t, secret("db")), &corev1.Secret{}, engine.Options{
		Name: "secrets", Resource: "secrets",
		Instrumentation: engine.Instrumentation{Events: ring, MutationAttribution: true, NoUpkeep: true},
	})
	wrote := make(chan struct{})
	var once sync.Once
	if _, err := inf.AddNamedEventHandler("scribbler", cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			obj.(*corev1.Secret).Data["password"] = []byte(written)
			once.Do(func() { close(wrote) })
		},
	}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	// The agent, built before the informer runs, lists changed fields with secret values hidden.
	srv := server(t, serve.Options{}, inf)
	startInformer(t, inf)
	waitfor.True(t, "the handler to write into the cached Secret", func() bool {
		select {
		case <-wrote:
			return true
		default:
			return false
		}
	})
	waitfor.True(t, "the handler's write into the cached Secret to be found", func() bool {
		s := inf.Snapshot()
		return len(s.Listeners) == 1 && s.Listeners[0].CacheMutations == 1
	})
	bodies := noSecretIn(t, srv, []string{
		api.PathFrame,
		api.PathFrame + "?cursor=1",
		api.PathObject + "?informer=secrets&key=default/db",
		api.PathEntries + "?informer=secrets",
		api.PathGeneration + "?informer=secrets",
		api.PathCut + "?informer=secrets&keys=true",
		api.PathReport,
		api.PathMetrics,
	}, secretValue, secretBase64, written, base64.StdEncoding.EncodeToString([]byte(written)))
	if !bytes.Contains(bodies[api.PathFrame], []byte(`data.password: \u003credacted, 29 bytes\u003e`)) {
		t.Errorf("the frame does not report the write into data.password by size: %s", bodies[api.PathFrame])
	}
}

// A refused request learns nothing of the agent: no version header and
// the same fixed sentence whatever it asked, wrong token or wrong method
// alike (the token is checked first, so a caller without it meets 401
// for every method).
func TestRefusalsTellNothing(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	srv := server(t, serve.Options{Token: "t"}, inf)
	do := func(method, path, token string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, c := range []struct {
		method, path, token string
		status              int
		sentence            string
		header              string // the one header the status needs
	}{
		{http.MethodGet, api.PathFrame, "", http.StatusUnauthorized, serve.SentenceUnauthorized, "WWW-Authenticate"},
		{http.MethodGet, "/nope?x=<script>", "wrong", http.StatusUnauthorized, serve.SentenceUnauthorized, "WWW-Authenticate"},
		{http.MethodPost, api.PathCut + "?informer=pods", "", http.StatusUnauthorized, serve.SentenceUnauthorized, "WWW-Authenticate"},
		{http.MethodDelete, api.PathMetrics, "t", http.StatusMethodNotAllowed, serve.SentenceReadOnly, "Allow"},
		{"BREW", "/nope", "t", http.StatusMethodNotAllowed, serve.SentenceReadOnly, "Allow"},
	} {
		resp := do(c.method, c.path, c.token)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		what := c.method + " " + c.path
		if resp.StatusCode != c.status || servetest.ErrorSentence(t, body) != c.sentence {
			t.Errorf("%s: %d %s, want %d %q", what, resp.StatusCode, body, c.status, c.sentence)
		}
		if v, ok := resp.Header[http.CanonicalHeaderKey(api.VersionHeader)]; ok {
			t.Errorf("%s: the refusal carries %s: %q", what, api.VersionHeader, v)
		}
		if resp.Header.Get(c.header) == "" {
			t.Errorf("%s: no %s header", what, c.header)
		}
	}
	resp := do(http.MethodGet, api.PathFrame, "t")
	resp.Body.Close()
	if resp.Header.Get(api.VersionHeader) != api.Version {
		t.Errorf("an authorized GET has %s = %q", api.VersionHeader, resp.Header.Get(api.VersionHeader))
	}
}

// Options.TokenFile is the token, read once; a token no client could send
// as it is (a newline read from a file) is refused up front instead of
// refusing every request.
func TestTokenFile(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := server(t, serve.Options{TokenFile: path}, inf)
	if status, body := servetest.Get(t, srv, http.MethodGet, api.PathFrame, "s3cret-token"); status != http.StatusOK {
		t.Errorf("with the file's token: %d %s", status, body)
	}
	if status, _ := servetest.Get(t, srv, http.MethodGet, api.PathFrame, ""); status != http.StatusUnauthorized {
		t.Errorf("without a token: %d", status)
	}
	if addr, err := serve.CheckAddr("0.0.0.0:0", serve.Options{TokenFile: path}); err != nil || addr != "0.0.0.0:0" {
		t.Errorf("CheckAddr on every address with a token file: %q, %v", addr, err)
	}

	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		opts serve.Options
		want string
	}{
		{serve.Options{Token: "a", TokenFile: path}, "both Options.Token and Options.TokenFile"},
		{serve.Options{TokenFile: missing}, missing + " does not exist"},
		{serve.Options{Token: "s3cret\n"}, "Options.Token: the token holds a control character"},
		{serve.Options{Token: "s3cret "}, "Options.Token: the token begins or ends with white space"},
	} {
		if _, err := NewHandler(c.opts, inf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewHandler(%+v): %v, want %q", c.opts, err, c.want)
		}
		if _, err := serve.CheckAddr("127.0.0.1:0", c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckAddr(%+v): %v, want %q", c.opts, err, c.want)
		}
	}
	if err := Serve(t.Context(), "", serve.Options{TokenFile: missing}, inf); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Serve with a missing token file: %v", err)
	}
}
