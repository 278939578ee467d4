package agent_test

import (
	"context"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/source"
)

//go:noinline
func parkedIn(ch <-chan struct{}) { <-ch }

// A goroutine dump finds the goroutines by their label and names the
// code each is parked in; goroutines not asked for are left out.
func TestStuckFramesFindsLabelledGoroutines(t *testing.T) {
	release := make(chan struct{})
	parked := make(chan struct{}, 2)
	done := make(chan struct{}, 2)
	for _, id := range []string{"t-asked", "t-other"} {
		go func() {
			defer func() { done <- struct{}{} }()
			pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(agent.StackLabel, id)))
			parked <- struct{}{}
			parkedIn(release)
		}()
	}
	<-parked
	<-parked
	defer func() { close(release); <-done; <-done }()

	// The goroutines may not have parked yet: ask until the frame is there.
	var frames map[string]source.StackFrame
	for range 1000 {
		frames = agent.StuckFrames(map[string]bool{"t-asked": true})
		if _, ok := frames["t-asked"]; ok {
			break
		}
	}
	f, ok := frames["t-asked"]
	if !ok || !strings.HasSuffix(f.Function, ".parkedIn") || !strings.HasSuffix(f.File, "stall_ext_test.go") {
		t.Fatalf("frames %+v; want t-asked parked in parkedIn (stall_ext_test.go)", frames)
	}
	if _, ok := frames["t-other"]; ok {
		t.Errorf("a goroutine not asked for was named: %+v", frames)
	}
}
