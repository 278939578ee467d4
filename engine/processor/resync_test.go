package processor

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
)

func TestSyncReachesOnlyDueListeners(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := New(Options{Clock: clk})
	never, every2, every3 := &recorder{}, &recorder{}, &recorder{}
	lNever := p.NewListener(ListenerConfig{Name: "never", Handler: never})
	l2 := p.NewListener(ListenerConfig{Name: "2s", Handler: every2, RequestedResync: 2 * time.Second, Resync: 2 * time.Second})
	l3 := p.NewListener(ListenerConfig{Name: "3s", Handler: every3, RequestedResync: 3 * time.Second, Resync: 3 * time.Second})
	for _, l := range []*Listener{lNever, l2, l3} {
		p.AddListener(l, nil)
	}
	run(t, p)

	sync := func(tag string) { p.Distribute(UpdateNotification{Old: obj(tag, "1"), New: obj(tag, "1")}, true) }
	step := func(d time.Duration, wantDue bool) {
		t.Helper()
		clk.Step(d)
		if got := p.ShouldResync(); got != wantDue {
			t.Fatalf("at +%v ShouldResync() = %v, want %v", clk.Since(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), got, wantDue)
		}
	}

	// Until the first ShouldResync every listener counts as due, as in
	// client-go, even one that never resyncs.
	sync("s0")
	step(time.Second, false) // t=1s
	sync("s1")
	p.Distribute(UpdateNotification{Old: obj("u", "1"), New: obj("u", "2")}, false)
	step(time.Second, true) // t=2s: 2s due
	sync("s2")
	step(time.Second, true) // t=3s: 3s due, 2s next at 4s
	sync("s3")
	step(time.Second, true) // t=4s: 2s due
	sync("s4")
	step(time.Second, false) // t=5s
	sync("s5")
	step(time.Second, true) // t=6s: both due
	sync("s6")
	p.Distribute(add(obj("end", "9"), false), false)

	const u, end = "update u@1->u@2", "add end@9 initial=false"
	wants := []struct {
		l    *Listener
		r    *recorder
		want []string
		sync uint64
	}{
		{lNever, never, []string{"update s0@1->s0@1", u, end}, 1},
		{l2, every2, []string{"update s0@1->s0@1", u, "update s2@1->s2@1", "update s4@1->s4@1", "update s6@1->s6@1", end}, 4},
		{l3, every3, []string{"update s0@1->s0@1", u, "update s3@1->s3@1", "update s6@1->s6@1", end}, 3},
	}
	for _, w := range wants {
		delivered(t, w.l, uint64(len(w.want)))
		equalCalls(t, w.l.Name(), w.r.seen(), w.want)
		if got, want := w.l.Stats().Delivered, (pipeline.Delivered{Add: 1, Update: 1, Sync: w.sync}); got != want {
			t.Fatalf("%s: Delivered = %+v, want %+v", w.l.Name(), got, want)
		}
	}
}

func TestResyncCheckPeriodChanged(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	p := New(Options{Clock: clk})
	h := &recorder{}
	ten := p.NewListener(ListenerConfig{Name: "10s", Handler: h, RequestedResync: 10 * time.Second, Resync: 10 * time.Second})
	minute := p.NewListener(ListenerConfig{Name: "1m", Handler: h, RequestedResync: time.Minute, Resync: time.Minute})
	zero := p.NewListener(ListenerConfig{Name: "0", Handler: h})
	for _, l := range []*Listener{ten, minute, zero} {
		p.AddListener(l, nil)
	}
	periods := func(want ...time.Duration) {
		t.Helper()
		for i, s := range p.Stats() {
			if s.ResyncPeriod != want[i] {
				t.Fatalf("%s: ResyncPeriod = %v, want %v", s.Name, s.ResyncPeriod, want[i])
			}
		}
	}

	// An informer that stops resyncing disables every listener's resync.
	p.ResyncCheckPeriodChanged(0)
	periods(0, 0, 0)
	clk.Step(10 * time.Second)
	if p.ShouldResync() {
		t.Fatal("ShouldResync() = true with every period zero")
	}

	// A slower check raises short periods; the next resync time set at
	// creation (t0+10s) still stands.
	p.ResyncCheckPeriodChanged(30 * time.Second)
	periods(30*time.Second, time.Minute, 0)
	if !p.ShouldResync() || !ten.resyncDue || minute.resyncDue || zero.resyncDue {
		t.Fatalf("at t0+10s want only 10s due; due: 10s=%v 1m=%v 0=%v", ten.resyncDue, minute.resyncDue, zero.resyncDue)
	}
	clk.Step(29 * time.Second) // t0+39s: next is now+30s = t0+40s
	if p.ShouldResync() {
		t.Fatal("ShouldResync() = true at t0+39s")
	}
	clk.Step(time.Second)
	if !p.ShouldResync() || !ten.resyncDue {
		t.Fatal("10s listener not due at t0+40s")
	}
	for _, s := range p.Stats() {
		if want := map[string]time.Duration{"10s": 10 * time.Second, "1m": time.Minute, "0": 0}[s.Name]; s.RequestedResync != want {
			t.Fatalf("%s: RequestedResync = %v, want %v", s.Name, s.RequestedResync, want)
		}
	}
}

func TestEffectiveResync(t *testing.T) {
	for _, c := range []struct{ desired, check, want time.Duration }{
		{0, 0, 0},
		{0, time.Minute, 0},
		{time.Minute, 0, 0},
		{10 * time.Second, time.Minute, time.Minute},
		{time.Minute, time.Minute, time.Minute},
		{time.Hour, time.Minute, time.Hour},
	} {
		if got := instr.EffectiveResync(c.desired, c.check); got != c.want {
			t.Errorf("EffectiveResync(%v, %v) = %v, want %v", c.desired, c.check, got, c.want)
		}
	}
}

// Recipients names exactly the listeners Distribute would reach.
func TestRecipientsFollowResyncDue(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := New(Options{Clock: clk})
	never := p.NewListener(ListenerConfig{Name: "never", Handler: &recorder{}})
	every2 := p.NewListener(ListenerConfig{Name: "2s", Handler: &recorder{}, RequestedResync: 2 * time.Second, Resync: 2 * time.Second})
	p.AddListener(never, nil)
	p.AddListener(every2, nil)
	names := func(sync bool) []string {
		var out []string
		for _, l := range p.Recipients(sync) {
			out = append(out, l.Name())
		}
		return out
	}

	// Until the first ShouldResync every listener takes syncs.
	equalCalls(t, "syncs before ShouldResync", names(true), []string{"never", "2s"})
	clk.Step(time.Second)
	p.ShouldResync()
	equalCalls(t, "syncs at 1s", names(true), nil)
	equalCalls(t, "non-syncs at 1s", names(false), []string{"never", "2s"})
	clk.Step(time.Second)
	p.ShouldResync()
	equalCalls(t, "syncs at 2s", names(true), []string{"2s"})
	if err := p.RemoveListener(every2); err != nil {
		t.Fatal(err)
	}
	equalCalls(t, "syncs after removal", names(true), nil)
	equalCalls(t, "non-syncs after removal", names(false), []string{"never"})
}
