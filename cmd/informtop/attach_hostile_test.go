package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/informtop/informtop/agent/api"
)

// An agent that fails (500) or answers a frame larger than the 64 MiB an
// answer may hold is refused at the first contact, exit 2, with a
// sentence saying so, instead of being polled until --timeout; and no
// more than the budget is read of it, once.
func TestAttachRefusesAFailingOrHugeAgent(t *testing.T) {
	var sent atomic.Int64
	huge := func(declare bool) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set(api.VersionHeader, api.Version)
			w.Header().Set("Content-Type", "application/json")
			if declare {
				w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			}
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			n, _ := w.Write([]byte(`{"source":"`))
			sent.Add(int64(n))
			for range 1 << 10 { // 1 GiB, unless the client stops reading
				n, err := w.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(api.VersionHeader, api.Version)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"the cut panicked: index out of range"}`))
	}))
	t.Cleanup(failing.Close)
	streamed := httptest.NewServer(huge(false))
	t.Cleanup(streamed.Close)
	declared := httptest.NewServer(huge(true))
	t.Cleanup(declared.Close)
	t.Setenv(envAttachToken, "")
	for _, c := range []struct {
		name, addr, want string
	}{
		{"500", failing.URL, "the agent at " + failing.URL + " failed to answer " + api.PathFrame + " (500 Internal Server Error: the cut panicked: index out of range)"},
		{"streamed 1 GiB", streamed.URL, "the agent's answer to " + api.PathFrame + " is larger than 64 MiB"},
		{"declared 1 GiB", declared.URL, "the agent's answer to " + api.PathFrame + " is larger than 64 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sent.Store(0)
			// --timeout is long: a refusal returns long before it.
			code, stdout, stderr := runCLI(t, "attach", c.addr, "--once", "--timeout", "30s")
			if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, c.want)
			}
			// The socket buffers of both sides hold a few MB beyond what
			// the client read.
			got := sent.Load()
			t.Logf("the agent wrote %.1f MiB", float64(got)/(1<<20))
			if got > 64<<20+16<<20 {
				t.Errorf("the agent wrote %d MB before the client stopped, more than the 64 MiB budget", got>>20)
			}
		})
	}
}
