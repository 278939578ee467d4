package attach

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// A redirect from the agent's address to another port of the same host
// (Go's client would send the token along) is not followed: the token
// never reaches it, and the sentence names where the redirect led, also
// when nothing listens there. A password in the address is never repeated.
func TestAttachFollowsNoRedirectToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
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
	for name, to := range map[string]string{"another port": other.URL, "a port where nothing listens": closed} {
		t.Run(name, func(t *testing.T) {
			from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, to+r.URL.Path+"?"+r.URL.RawQuery, http.StatusFound)
			}))
			t.Cleanup(from.Close)
			s := newSource(t, from.URL, Options{Token: "s3cret", HTTPClient: &http.Client{}})
			err := s.Check(context.Background())
			want := from.URL + " redirected the request to " + to + api.PathFrame + ", another scheme, host or port, where informtop does not follow"
			if !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), want) {
				t.Errorf("Check: %v; want ErrUnreachable saying %q", err, want)
			}
		})
	}
	mu.Lock()
	if len(elsewhere) > 0 {
		t.Errorf("the other port got %d requests, with Authorization %q; want none", len(elsewhere), elsewhere)
	}
	mu.Unlock()

	for _, addr := range []string{"http://user:PASSWORD@127.0.0.1:6060", "user:PASSWORD@127.0.0.1:6060", "user:PASS%zz@127.0.0.1:6060/debug"} {
		if _, err := New(addr, Options{}); err == nil || strings.Contains(err.Error(), "PASS") {
			t.Errorf("%s: %v; want it refused without repeating the password", addr, err)
		}
	}
}
