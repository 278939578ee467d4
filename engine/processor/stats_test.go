package processor

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// steppingHandler advances the fake clock inside each call by the number of
// milliseconds in the object's name ("ms-17" takes 17 ms).
func steppingHandler(clk *clocktesting.FakeClock) *recorder {
	return &recorder{hook: func(call string) {
		_, rest, _ := strings.Cut(call, "ms-") // "add ms-17@1 initial=false"
		digits, _, _ := strings.Cut(rest, "@")
		ms, err := strconv.Atoi(digits)
		if err != nil {
			panic(err)
		}
		clk.Step(time.Duration(ms) * time.Millisecond)
	}}
}

func TestLatencyPercentiles(t *testing.T) {
	for _, c := range []struct {
		name     string
		window   int
		calls    int
		p50, p99 time.Duration
	}{
		// 1..100 ms, all kept: nearest-rank p50 is 50 ms, p99 is 99 ms.
		{"default window", 0, 100, 50 * time.Millisecond, 99 * time.Millisecond},
		// 1..20 ms through a window of 10 keeps 11..20 ms.
		{"window of 10", 10, 20, 15 * time.Millisecond, 20 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			p := New(Options{Clock: clk, LatencyWindow: c.window})
			l := p.NewListener(ListenerConfig{Name: "l", Handler: steppingHandler(clk)})
			p.AddListener(l, nil)
			if s := l.Stats(); s.LatencyP50 != 0 || s.LatencyP99 != 0 {
				t.Fatalf("empty window: p50=%v p99=%v, want 0", s.LatencyP50, s.LatencyP99)
			}
			run(t, p)
			for i := 1; i <= c.calls; i++ {
				p.Distribute(add(obj(fmt.Sprintf("ms-%d", i), "1"), false), false)
			}
			delivered(t, l, uint64(c.calls))
			if s := l.Stats(); s.LatencyP50 != c.p50 || s.LatencyP99 != c.p99 {
				t.Fatalf("p50=%v p99=%v, want %v and %v", s.LatencyP50, s.LatencyP99, c.p50, c.p99)
			}
		})
	}
}

func TestStatsWhileInCallback(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	p := New(Options{Clock: clk})
	g := newGate()
	l := p.NewListener(ListenerConfig{Name: "l", Handler: &recorder{hook: g.wait}, RequestedResync: time.Minute, Resync: 2 * time.Minute})
	p.AddListener(l, nil)
	run(t, p)
	t.Cleanup(g.release)
	waitfor.True(t, "the registration synced", func() bool { return !l.Stats().SyncedAt.IsZero() })

	clk.Step(5 * time.Second)
	p.Distribute(UpdateNotification{Old: obj("a", "1"), New: obj("b", "1")}, true)
	<-g.entered
	p.Distribute(DeleteNotification{Obj: obj("c", "1")}, false)
	clk.Step(time.Second)

	s := l.Stats()
	want := ListenerStats{
		Name: "l", Pending: 1, Capacity: initialBacklog, HighWater: 1,
		InCallback: pipeline.CallbackUpdate, InCallbackKey: "ns/b", InCallbackSince: start.Add(5 * time.Second),
		Synced: true, SyncedAt: start, RequestedResync: time.Minute, ResyncPeriod: 2 * time.Minute,
	}
	if s != want {
		t.Fatalf("Stats() =\n%+v\nwant\n%+v", s, want)
	}

	g.release()
	delivered(t, l, 2)
	s = l.Stats()
	if s.Delivered != (pipeline.Delivered{Sync: 1, Delete: 1}) || s.InCallback != "" || s.InCallbackKey != "" || !s.InCallbackSince.IsZero() {
		t.Fatalf("after draining: %+v", s)
	}
	if s.LatencyP99 != time.Second {
		t.Fatalf("p99 = %v, want the 1 s the sync update took", s.LatencyP99)
	}
}

func TestHandlerEvents(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring, Clock: clk, CallbackEvents: true})
	l := p.NewListener(ListenerConfig{Name: "l", Handler: steppingHandler(clk)})
	p.AddListener(l, nil)
	run(t, p)
	p.Distribute(add(obj("ms-7", "1"), false), false)
	p.Distribute(UpdateNotification{Old: obj("ms-3", "1"), New: obj("ms-3", "1")}, true)
	delivered(t, l, 2)
	waitfor.True(t, "finish events", func() bool { return len(events.ofType(pipeline.EventHandlerFinish)) == 2 })

	var got []instr.Event
	for _, e := range events.Recent(-1) {
		if e.Type == pipeline.EventHandlerStart || e.Type == pipeline.EventHandlerFinish {
			e.Seq = 0 // the ring numbers events; the test checks their content
			got = append(got, e)
		}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := []instr.Event{
		{Time: at, Type: pipeline.EventHandlerStart, Informer: "pods", Listener: "l", Key: "ns/ms-7", Detail: pipeline.CallbackAdd},
		{Time: at.Add(7 * time.Millisecond), Type: pipeline.EventHandlerFinish, Informer: "pods", Listener: "l", Key: "ns/ms-7", Detail: pipeline.CallbackAdd, Duration: 7 * time.Millisecond},
		{Time: at.Add(7 * time.Millisecond), Type: pipeline.EventHandlerStart, Informer: "pods", Listener: "l", Key: "ns/ms-3", Detail: "OnUpdate (sync)"},
		{Time: at.Add(10 * time.Millisecond), Type: pipeline.EventHandlerFinish, Informer: "pods", Listener: "l", Key: "ns/ms-3", Detail: "OnUpdate (sync)", Duration: 3 * time.Millisecond},
	}
	if len(got) != len(want) {
		t.Fatalf("events %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].Time.Equal(want[i].Time) {
			t.Fatalf("event %d at %v, want %v", i, got[i].Time, want[i].Time)
		}
		got[i].Time, want[i].Time = time.Time{}, time.Time{}
		if got[i] != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
