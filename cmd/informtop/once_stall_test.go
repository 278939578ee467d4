package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/sourcetest"
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
