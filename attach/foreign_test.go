package attach

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// fakeRoute is a Route as attach/tunnel's, with fixed sentences.
type fakeRoute struct{}

func (fakeRoute) Describe() string { return "shop/ctrl-0 (deploy/ctrl):8443 via API server" }
func (fakeRoute) Unauthorized(tokenGiven bool) string {
	if tokenGiven {
		return "route: your token was rejected"
	}
	return "route: your kubeconfig's token was rejected"
}
func (fakeRoute) Forbidden(path string) string { return "route: forbidden on " + path }

// What guards an agent answers without the agent's version header: each
// answer is named for what it is, and Check refuses at once.
func TestCheckNamesWhatGuardsTheAgent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		route  bool
		token  string
		want   []string
	}{
		{"a guard's 401", http.StatusUnauthorized, "Unauthorized", true, "", []string{"route: your kubeconfig's token was rejected"}},
		{"a guard's 401 with the user's token", http.StatusUnauthorized, "Unauthorized", true, "t0ken", []string{"route: your token was rejected"}},
		{"controller-runtime's invalid token", http.StatusInternalServerError, "Authentication failed", true, "", []string{"route: your kubeconfig's token was rejected"}},
		{"controller-runtime without SubjectAccessReviews", http.StatusInternalServerError, "Authorization for user bob failed", true, "", []string{"could not check your access", "create on subjectaccessreviews"}},
		{"a guard's 403", http.StatusForbidden, "Authorization denied for user bob", true, "", []string{"route: forbidden on /debug/informtop/informtop/v1/frame"}},
		{"a proxy's 403 on an address", http.StatusForbidden, "denied", false, "", []string{"403 Forbidden", "before the agent saw it", "attach -n NS deploy/NAME"}},
		{"plain HTTP to a TLS port", http.StatusBadRequest, "Client sent an HTTP request to an HTTPS server.", false, "", []string{"speaks TLS", "https://"}},
		{"nothing mounted there", http.StatusNotFound, "404 page not found", false, "", []string{"answered 404", "nothing is mounted there"}},
		{"not an agent", http.StatusOK, "hello", false, "", []string{"is it an informtop agent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, tc.body, tc.status)
			}))
			defer srv.Close()
			opts := Options{Token: tc.token}
			if tc.route {
				opts.Route = fakeRoute{}
			}
			s, err := New(srv.URL+"/debug/informtop/", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.client.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err = s.Check(ctx)
			if !errors.Is(err, source.ErrUnreachable) {
				t.Fatalf("Check: %v; want a refusal (source.ErrUnreachable)", err)
			}
			contains(t, "refusal", err.Error(), tc.want...)
			if got := IsNotServed(err); got != (tc.status == http.StatusNotFound) {
				t.Errorf("IsNotServed = %t for a %d", got, tc.status)
			}
		})
	}
}

// TLS to a plain port, and a certificate nobody vouches for, are refused
// at once with a sentence, not waited on until the timeout.
func TestCheckRefusesTLSMismatches(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	for _, tc := range []struct {
		addr string
		want string
	}{
		{strings.Replace(plain.URL, "http://", "https://", 1), "answers plain HTTP, not TLS"},
		{tlsSrv.URL, "is not trusted"},
	} {
		s, err := New(tc.addr, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = s.Check(ctx)
		cancel()
		s.client.CloseIdleConnections()
		if !errors.Is(err, source.ErrUnreachable) {
			t.Fatalf("Check(%s): %v; want a refusal", tc.addr, err)
		}
		contains(t, "refusal", err.Error(), tc.want)
	}
}

// A route names the agent in the title and the notes.
func TestRouteNamesTheAgent(t *testing.T) {
	s, err := New("https://ctrl-0.shop:8443/debug/informtop/", Options{Route: fakeRoute{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Title(), (fakeRoute{}).Describe(); got != want {
		t.Errorf("Title() = %q, want the route's description", got)
	}
	if st := s.Status(); !strings.Contains(st.Message, "via API server") {
		t.Errorf("status %q does not say where", st.Message)
	}
}

// The agent's own 403 (its metrics token, which reads /metrics only) is
// a refusal naming the token to give instead.
func TestCheckNamesANarrowToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.VersionHeader, api.Version)
		http.Error(w, `{"error":"this token reads /metrics only"}`, http.StatusForbidden)
	}))
	defer srv.Close()
	s, err := New(srv.URL, Options{Token: "metrics-token"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.client.CloseIdleConnections()
	err = s.Check(context.Background())
	if !errors.Is(err, source.ErrUnreachable) {
		t.Fatalf("Check: %v; want a refusal", err)
	}
	contains(t, "refusal", err.Error(), "403 Forbidden", "reads /metrics only", "--token-file")
}
