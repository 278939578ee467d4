package engineserve

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "10.1.2.3:9090", "example.com:9090"} {
		err := Serve(context.Background(), addr, serve.Options{}, inf)
		if err == nil || !strings.Contains(err.Error(), "without a token") || !strings.Contains(err.Error(), "Options.Token") {
			t.Errorf("Serve(%s) = %v", addr, err)
		}
	}
	if err := Serve(context.Background(), "nonsense", serve.Options{}, inf); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("Serve(nonsense) = %v", err)
	}
}

// serveUntilCancelled runs Serve and returns the address it listens on and
// a stop that cancels it and returns Serve's error.
func serveUntilCancelled(t *testing.T, addr string, opts serve.Options, informers ...*engine.Informer) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan net.Addr, 1)
	opts.Listening = func(a net.Addr) { listening <- a }
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, addr, opts, informers...) }()
	select {
	case a := <-listening:
		return a.String(), func() error {
			cancel()
			select {
			case err := <-done:
				return err
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after its context was cancelled")
				return nil
			}
		}
	case err := <-done:
		cancel()
		t.Fatalf("Serve returned at once: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Serve did not start listening")
	}
	return "", nil
}

func TestServeStopsWhenContextIsDone(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	addr, stop := serveUntilCancelled(t, "", serve.Options{}, inf)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("listening on %s, want loopback", addr)
	}
	client := &http.Client{Transport: &http.Transport{}}
	resp, err := client.Get("http://" + addr + api.PathFrame)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get(api.VersionHeader) != api.Version {
		t.Errorf("GET frame: %d, version %q", resp.StatusCode, resp.Header.Get(api.VersionHeader))
	}
	client.CloseIdleConnections()
	if err := stop(); err != nil {
		t.Errorf("Serve returned %v after cancel, want nil", err)
	}
	if _, err := client.Get("http://" + addr + api.PathFrame); err == nil {
		t.Error("still serving after cancel")
	}
	client.CloseIdleConnections()
}

func TestServeWithTokenOnAnyAddress(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	addr, stop := serveUntilCancelled(t, "0.0.0.0:0", serve.Options{Token: "tok"}, inf)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for token, want := range map[string]int{"": http.StatusUnauthorized, "nope": http.StatusUnauthorized, "tok": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+port+api.PathFrame, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
	client.CloseIdleConnections()
	if err := stop(); err != nil {
		t.Error(err)
	}
}

func TestServeReportsListenErrors(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = Serve(context.Background(), ln.Addr().String(), serve.Options{}, inf)
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+ln.Addr().String()) {
		t.Errorf("Serve on a busy port = %v", err)
	}
}
