package engineserve

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/informtop/informtop/agent/serve/servetest"
	"net/http"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

// TestCutEndpoint: the agent serves an informer's cache as one state: its
// version, a digest over the sorted key@version lines (so two caches
// compare without sending keys), and the keys only when asked.
func TestCutEndpoint(t *testing.T) {
	f := newFixture(t, 64, engine.Options{})
	srv := server(t, serve.Options{}, f.pods, f.secrets)

	var digestOnly api.Cut
	servetest.GetJSON(t, srv, api.PathCut+"?informer=pods", &digestOnly)
	var full api.Cut
	servetest.GetJSON(t, srv, api.PathCut+"?informer=pods&keys=true", &full)
	if digestOnly.Entries != nil || digestOnly.Objects != 3 || digestOnly.ResourceVersion == "" {
		t.Fatalf("digest-only cut %+v", digestOnly)
	}
	var lines strings.Builder
	for _, e := range full.Entries {
		lines.WriteString(e.Key + "@" + e.ResourceVersion + "\n")
	}
	sum := sha256.Sum256([]byte(lines.String()))
	if len(full.Entries) != 3 || full.Entries[0].Key != "default/a" || full.Digest != hex.EncodeToString(sum[:]) || full.Digest != digestOnly.Digest {
		t.Fatalf("cut %+v, digest-only %s", full, digestOnly.Digest)
	}
	if code, body := servetest.Get(t, srv, http.MethodGet, api.PathCut+"?informer=nope", ""); code != http.StatusNotFound {
		t.Errorf("unknown informer: %d %s", code, body)
	}
}
