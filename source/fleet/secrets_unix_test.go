//go:build unix

package fleet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// The bearer token is read on every query, so a rotated one is picked up;
// a FIFO or /dev/zero put in its place meanwhile fails that query with a
// sentence naming the flag, at once, and the next good token mends it.
func TestFleetRereadsTheTokenFileWithinItsBudget(t *testing.T) {
	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1"}
	p.scrapes(tg, 1)
	p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(dir, "token") // a symlink, as a Secret volume mounts it
	point := func(target string) {
		t.Helper()
		tmp := tok + ".new"
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, tok); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	point(write("one", "first\n"))
	hc := Auth{BearerToken: "--bearer-token-file"}
	s := newSource(t, Options{URL: serveProm(t, p), Auth: hc,
		Secrets: SecretFiles{"--bearer-token-file": {Flag: "--bearer-token-file", Path: tok, Limit: MaxTokenFileBytes, Token: true, What: "the bearer token"}}})
	t.Cleanup(s.http.CloseIdleConnections)
	ctx := context.Background()
	lastAuth := func() string {
		_, auth := p.seen()
		return auth[len(auth)-1]
	}

	if s.refresh(ctx); s.Pull(0, 0).Status.State != source.Live || lastAuth() != "Bearer first" {
		t.Fatalf("status %+v, Authorization %q; want live with the first token", s.Pull(0, 0).Status, lastAuth())
	}
	for target, want := range map[string]string{fifo: "is a named pipe (FIFO)", "/dev/zero": "is a device"} {
		point(target)
		s.refresh(ctx)
		if st := s.Pull(0, 0).Status; st.State != source.Disconnected || !strings.Contains(st.Message, "--bearer-token-file "+tok+" "+want) {
			t.Errorf("the token file swapped for %s: status %+v; want a sentence naming --bearer-token-file and %q", target, st, want)
		}
	}
	point(write("two", "second\n"))
	if s.refresh(ctx); s.Pull(0, 0).Status.State != source.Live || lastAuth() != "Bearer second" {
		t.Errorf("status %+v, Authorization %q; want live with the rotated token", s.Pull(0, 0).Status, lastAuth())
	}
}
