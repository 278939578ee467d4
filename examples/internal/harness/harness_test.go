package harness

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer the announcing goroutine and the test
// share.
type lockedBuffer struct {
	sync.Mutex
	bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.Lock()
	defer b.Unlock()
	return b.Buffer.Write(p)
}

func (b *lockedBuffer) String() string {
	b.Lock()
	defer b.Unlock()
	return b.Buffer.String()
}

// The announcement waits for the agent's own answer: a server that
// answers without the agent's sign is not announced; once it answers
// with it, the URL of the mount is, once.
func TestAnnounceWhenServingWaitsForTheAgent(t *testing.T) {
	var out lockedBuffer
	announceTo = &out
	t.Cleanup(func() { announceTo = os.Stderr })

	var mu sync.Mutex
	agentUp := false
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/debug/informtop/probe" {
			t.Errorf("asked %s", r.URL.Path)
		}
		if agentUp {
			w.Header().Set("X-Agent", "1")
		}
		select {
		case asked <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		AnnounceWhenServing(ctx, addr, "/debug/informtop/", "/probe", false, func(r *http.Response) bool { return r.Header.Get("X-Agent") != "" })
	}()
	<-asked
	<-asked // asked twice without the sign: nothing announced yet
	if got := out.String(); got != "" {
		t.Fatalf("announced %q before the agent answered", got)
	}
	mu.Lock()
	agentUp = true
	mu.Unlock()
	<-done
	if got, want := out.String(), "agent listening on http://"+addr+"/debug/informtop/\n"; got != want {
		t.Fatalf("announced %q, want %q", got, want)
	}
}

// FreePort resolves port 0 to a port one can listen on, and leaves any
// other port as it is.
func TestFreePort(t *testing.T) {
	addr, err := FreePort("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(addr, ":0") {
		t.Fatalf("FreePort = %s", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	l.Close()
	if got, _ := FreePort("127.0.0.1:6060"); got != "127.0.0.1:6060" {
		t.Fatalf("FreePort(127.0.0.1:6060) = %s", got)
	}
}
