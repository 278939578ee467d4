package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// A handler stuck in one callback: --once --json says it is stalled and
// since when, and --fail-on-stall exits 5 once it has been stuck longer
// than asked, naming it; a shorter stall, or none asked for, keeps the
// exit of a synced run.
func TestOnceFailsOnAStall(t *testing.T) {
	since := time.Now().Add(-40 * time.Second)
	snaps := []source.Informer{{Name: "pods", Resource: "pods", Started: true, Synced: true,
		Listeners: []source.Listener{
			{Name: "main.blockIfLabelled", Synced: true, Delivered: source.Delivered{Add: 3}, InCallback: source.CallbackAdd, InCallbackKey: "default/stuck", InCallbackSince: since, LatencyP50: time.Millisecond, LatencyP99: 3 * time.Millisecond},
			{Name: "fast", Synced: true},
		}}}
	src := sourcetest.NewCluster(sourcetest.New(sourcetest.Config{Kind: "kube", Title: "t", Frames: [][]source.Informer{snaps}}), nil)
	for _, c := range []struct {
		limit time.Duration
		code  int
	}{{0, 0}, {time.Hour, 0}, {30 * time.Second, 5}} {
		o := newOptions()
		o.once, o.json, o.timeout, o.failOnStall = true, true, 5*time.Second, c.limit
		var out, errOut bytes.Buffer
		if code := runOnce(context.Background(), src, o, &out, &errOut); code != c.code {
			t.Fatalf("--fail-on-stall %s: exit %d, want %d; stderr %q", c.limit, code, c.code, errOut.String())
		}
		var r struct {
			Informers []struct {
				Listeners []struct {
					Name              string     `json:"name"`
					Stalled           bool       `json:"stalled"`
					StalledSince      *time.Time `json:"stalledSince"`
					LatencyP99Seconds *float64   `json:"latencyP99Seconds"`
				} `json:"listeners"`
			} `json:"informers"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("the report is not JSON: %v\n%s", err, out.String())
		}
		ls := r.Informers[0].Listeners
		if !ls[0].Stalled || ls[0].StalledSince == nil || !ls[0].StalledSince.Equal(since) || ls[0].LatencyP99Seconds == nil || *ls[0].LatencyP99Seconds != 0.003 {
			t.Errorf("the stuck handler reads %+v, want stalled since %v with its p99", ls[0], since)
		}
		if ls[1].Stalled || ls[1].StalledSince != nil || ls[1].LatencyP99Seconds != nil {
			t.Errorf("an idle handler that never returned from a call reads stalled or with a latency: %+v", ls[1])
		}
		if c.code == 5 {
			for _, w := range []string{"pods: handler main.blockIfLabelled has been in OnAdd of default/stuck for 4", "longer than --fail-on-stall 30s (exit 5)"} {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr %q lacks %q", errOut.String(), w)
				}
			}
		}
	}
}

func TestFailOnStallGoesWithOnce(t *testing.T) {
	code, _, stderr := runCLI(t, "--demo", "--fail-on-stall", "10s")
	if code != 2 || !strings.Contains(stderr, "--fail-on-stall goes with --once") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "--demo", "--once", "--fail-on-stall", "-1s")
	if code != 2 || !strings.Contains(stderr, "--fail-on-stall must not be negative") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// unsynced is a source whose informers never sync, as one whose handler is
// stuck in its initial list: WaitSynced waits until its context ends, and
// says why it ended.
type unsynced struct {
	*sourcetest.Cluster
	ended chan error
}

func (s unsynced) WaitSynced(ctx context.Context) error {
	<-ctx.Done()
	s.ended <- ctx.Err()
	return ctx.Err()
}

// runOnceAsync runs runOnce and fails the test should it still wait after
// a minute: a wait --fail-on-stall should have ended is an hour long.
func runOnceAsync(t *testing.T, src source.Source, o *options) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- runOnce(context.Background(), src, o, &out, &errOut) }()
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatal("--once still waits a minute after the stall began; --fail-on-stall 1s should have ended it")
	}
	return code, out.String(), errOut.String()
}

// A handler stuck during the initial list keeps the sync from coming:
// --fail-on-stall 1s exits 5 a second after the call began, naming it,
// instead of waiting out --timeout; the report says what had not synced.
func TestFailOnStallDuringTheInitialList(t *testing.T) {
	since := time.Now()
	snaps := []source.Informer{{Name: "foos", Resource: "foos.samplecontroller.k8s.io", Started: true, Synced: true,
		Listeners: []source.Listener{{Name: "main.(*Controller)", InCallback: source.CallbackAdd, InCallbackKey: "default/foo-0", InCallbackSince: since}}}}
	fake := sourcetest.New(sourcetest.Config{Kind: "attach", Title: "t", Frames: [][]source.Informer{snaps}})
	src := unsynced{sourcetest.NewCluster(fake, nil), make(chan error, 1)}
	o := newOptions()
	o.once, o.json, o.timeout, o.failOnStall = true, true, time.Hour, time.Second
	code, stdout, stderr := runOnceAsync(t, src, o)
	if code != 5 {
		t.Fatalf("exit %d; want 5\n%s\n%s", code, stdout, stderr)
	}
	if err := <-src.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the wait for the sync ended with %v; want it cut short by the stall", err)
	}
	for _, want := range []string{"foos: handler main.(*Controller) has been in OnAdd of default/foo-0 for ", "longer than --fail-on-stall 1s (exit 5)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	var r struct {
		Synced bool `json:"synced"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Synced {
		t.Errorf("the report (%v) says synced %t; want the unsynced handler's report\n%s", err, r.Synced, stdout)
	}
}

// syncedThenStuck is a source that syncs, its handler entering a call
// that never returns just then.
type syncedThenStuck struct{ *sourcetest.Cluster }

func (s syncedThenStuck) WaitSynced(context.Context) error {
	s.SetFrames([][]source.Informer{{{Name: "pods", Resource: "pods", Started: true, Synced: true,
		Listeners: []source.Listener{{Name: "h", Synced: true, InCallback: source.CallbackUpdate, InCallbackKey: "default/web", InCallbackSince: time.Now()}}}}})
	return nil
}

// A stall that begins while --once waits out --duration ends the wait too.
func TestFailOnStallDuringDuration(t *testing.T) {
	idle := []source.Informer{{Name: "pods", Resource: "pods", Started: true, Synced: true,
		Listeners: []source.Listener{{Name: "h", Synced: true}}}}
	src := syncedThenStuck{sourcetest.NewCluster(sourcetest.New(sourcetest.Config{Kind: "kube", Title: "t", Frames: [][]source.Informer{idle}}), nil)}
	o := newOptions()
	o.once, o.timeout, o.duration, o.failOnStall = true, time.Minute, time.Hour, time.Second
	code, stdout, stderr := runOnceAsync(t, src, o)
	if code != 5 || !strings.Contains(stderr, "pods: handler h has been in OnUpdate of default/web for ") {
		t.Fatalf("exit %d, stderr %q; want 5 naming the stuck call\n%s", code, stderr, stdout)
	}
}
