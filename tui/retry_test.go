package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// retrying is a cluster whose informers wait out client-go's backoff
// until ctrl+r restarts them.
type retrying struct {
	*sourcetest.Cluster
	answers []retryAnswer // one per RetryNow, in order
	asked   int
}

type retryAnswer struct {
	restarted []string
	err       error
}

func (r *retrying) Controls() source.Controls {
	c := r.Cluster.Controls()
	c.Retry = r
	return c
}

func (r *retrying) NextAttempts() map[string]time.Time {
	return map[string]time.Time{"pods": t0.Add(42 * time.Second)}
}

func (r *retrying) RetryNow(context.Context) ([]string, error) {
	a := r.answers[r.asked]
	r.asked++
	return a.restarted, a.err
}

// ctrl+r asks the source to retry now and says what it did: refused while
// the server is away, the informers restarted once it is back, nothing
// when nothing waits; a source without it says why the key does nothing.
func TestRetryNowKey(t *testing.T) {
	src := &retrying{Cluster: sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil), answers: []retryAnswer{
		{err: errors.New("the API server at https://10.0.0.1:6443 still does not answer (connection refused): nothing was restarted")},
		{restarted: []string{"pods", "secrets"}},
		{},
	}}
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	for _, want := range []string{
		"still does not answer (connection refused): nothing was restarted",
		"restarted the list and watch of pods, secrets now, instead of after client-go's backoff",
		"nothing to retry: no informer is waiting out client-go's backoff",
	} {
		h.keys("ctrl+r")
		if got := lastLine(h.screen()); !strings.Contains(got, want) {
			t.Errorf("footer after ctrl+r: %q, want %q", got, want)
		}
	}
	if src.asked != 3 {
		t.Errorf("RetryNow asked %d times, want 3", src.asked)
	}
	if !strings.Contains(helpText(h), "retry now") {
		t.Error("the help does not list ctrl+r")
	}

	plain := newHarness(t, sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil))
	plain.size(160, 48)
	plain.frames(fixtureFrames)
	pressRefused(t, plain, "ctrl+r", "retrying now restarts informers that run inside informtop against a cluster; this source's informers run elsewhere, and retry on their own")
}

// An informer whose watch is down says when client-go tries again, as the
// source knows it, and the key that does it now; one whose watch got
// 410 Gone says a relist is pending and when client-go lists again (it
// does not watch again), and its title says the watch ended, not that it
// is down: the server answered.
func TestLinkNoteSaysWhenClientGoRetries(t *testing.T) {
	for _, tc := range []struct {
		err   string
		title string
		want  []string
	}{
		{refusedWatch("/api/v1/pods"), "watch down", []string{"watch down, last error 3.0s ago", "connection refused", "client-go retries within 42s", "ctrl+r retries now"}},
		{"watch: Too many requests, please try again later.", "watch down", []string{"watch down, last error 3.0s ago: the API server turned the watch away (429 Too Many Requests): it is overloaded", "client-go retries within 42s", "ctrl+r retries now"}},
		{"watch: too old resource version: 5 (120)", "watch ended", []string{"relist pending: the server answered 410 Gone", "client-go lists again within 42s", "ctrl+r retries now"}},
	} {
		s := source.Informer{Name: "pods", Resource: "pods", Started: true, Taken: t0, Synced: true,
			Reflector: source.Reflector{Watches: 2, LastError: tc.err, LastErrorTime: t0.Add(-3 * time.Second)}}
		src := &retrying{Cluster: sourcetest.NewCluster(sourcetest.New(sourcetest.Config{Kind: "kube", Title: "prod", Frames: [][]source.Informer{{s}}}), nil)}
		h := newHarness(t, src)
		h.size(160, 48)
		h.frames(1)
		if title := strings.SplitN(h.screen(), "\n", 2)[0]; !strings.Contains(title, tc.title) {
			t.Errorf("%s: the title line %q, want %q", tc.err, title, tc.title)
		}
		screen := squash(h.screen())
		for _, w := range tc.want {
			if !strings.Contains(screen, squash(w)) {
				t.Errorf("%s: the screen lacks %q:\n%s", tc.err, w, h.screen())
			}
		}
	}
}
