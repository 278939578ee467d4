package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// stallFrame is one frame of the stall story: slow's counts as the
// source read them at t.
type stallFrame struct {
	t         time.Duration
	phase     string
	pending   int
	delivered uint64
	since     time.Duration // when slow's call in progress began; -1: idle
}

// stallStory is slow on a fake clock, a frame every 100 ms (the
// dashboard's refresh): 2 s healthy; then stuck in one OnUpdate for 8 s
// while 20 changes a second pile up; then back, taking 10 a second while
// 20 still come, so the backlog keeps growing for 4 s; then the changes
// stop and it drains at 30 a second.
func stallStory() []stallFrame {
	const frame = 100 * time.Millisecond
	var out []stallFrame
	pending, delivered := 0, uint64(0)
	stuckAt := 2050 * time.Millisecond // just after a point, so the call and the points agree when it is stuck
	for t := time.Duration(0); t <= 22*time.Second; t += frame {
		f := stallFrame{t: t, since: -1}
		switch {
		case t < stuckAt:
			f.phase = "healthy"
			delivered += 2
		case t < 10*time.Second:
			f.phase = "stalled"
			pending += 2
			f.since = stuckAt
		case t < 14*time.Second:
			f.phase = "returned, backlog growing"
			pending++ // two in, one handled
			delivered++
			f.since = t - 10*time.Millisecond
		default:
			f.phase = "draining"
			n := min(pending, 3)
			pending -= n
			delivered += uint64(n)
			if pending > 0 {
				f.since = t - 10*time.Millisecond
			}
		}
		f.pending, f.delivered = pending, delivered
		out = append(out, f)
	}
	return out
}

func (f stallFrame) informer() source.Informer {
	taken := t0.Add(f.t)
	slow := source.Listener{Name: "slow", Pending: f.pending, Delivered: source.Delivered{Update: f.delivered}, Synced: true}
	if f.since >= 0 {
		slow.InCallback, slow.InCallbackKey, slow.InCallbackSince = source.CallbackUpdate, "default/web-1", t0.Add(f.since)
	}
	fast := source.Listener{Name: "fast", Delivered: source.Delivered{Update: uint64(f.t / (50 * time.Millisecond))}, Synced: true}
	return source.Informer{Name: "pods", Resource: "pods", Taken: taken, Started: true, Synced: true,
		Reflector: source.Reflector{WatchOpen: true, WatchSince: t0}, Listeners: []source.Listener{slow, fast}}
}

// A listener's state follows what it did, frame by frame: healthy, then
// STALLED only once its one callback has run past the threshold (and its
// backlog rose); the frame after the callback returns it is running again
// on every view, though its backlog keeps growing for seconds and the
// rate of the second before reads 0/s; and so while it drains.
func TestStallStateFollowsTheListenerFrameByFrame(t *testing.T) {
	story := stallStory()
	frames := make([][]source.Informer, len(story))
	for i, f := range story {
		frames[i] = []source.Informer{f.informer()}
	}
	h := newHarness(t, sourcetest.New(sourcetest.Config{Kind: "demo", Title: "demo", Frames: frames}))
	h.size(80, 24)
	after := h.m.c.stallAfter
	sawGrowing := false
	for i, f := range story {
		h.frames(1)
		h.keys("3")
		listeners := h.screen()
		h.keys("1")
		pipeline := h.screen()
		inCall := f.t - f.since
		wantStalled := f.phase == "stalled" && inCall > after
		for view, screen := range map[string]string{"Listeners": listeners, "Pipeline": pipeline} {
			got := strings.Contains(screen, "STALLED")
			if got != wantStalled {
				t.Fatalf("frame %d at %v (%s, pending %d, delivered %d): the %s view says STALLED %v, want %v\n%s",
					i, f.t, f.phase, f.pending, f.delivered, view, got, wantStalled, screen)
			}
			if header := strings.SplitN(screen, "\n", 3)[1]; strings.Contains(header, "stalled") != wantStalled {
				t.Fatalf("frame %d at %v (%s): the header reads %q, want stalled %v", i, f.t, f.phase, header, wantStalled)
			}
		}
		if f.phase == "stalled" && f.t >= 5*time.Second && !strings.Contains(listeners, "backlog rising") {
			t.Fatalf("frame %d at %v: 3 s of a growing backlog behind a stuck call is not said:\n%s", i, f.t, listeners)
		}
		if f.phase == "returned, backlog growing" {
			// The trend still shows the backlog growing; the state does not
			// call the handler stalled.
			if row := lineWith(listeners, "slow"); strings.Contains(row, "↑") {
				sawGrowing = true
			}
		}
	}
	if !sawGrowing {
		t.Fatal("no frame after the return showed the backlog still rising: the story does not test what it says")
	}
}

// lineWith is the first line of screen holding s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// The rule itself on the points: a growing backlog with nothing delivered
// since the last look is a stall; a return or a delivery since is not,
// even when the newest point is the snapshot being judged.
func TestRisingBacklogIsAStallOnlyWhileNothingMoves(t *testing.T) {
	for _, tc := range []struct {
		name      string
		delivered uint64
		since     time.Duration // the call in progress began; -1: idle
		want      bool
	}{
		{"still stuck in the same call", 0, 0, true},
		{"delivered since the last look", 3, 3400 * time.Millisecond, false},
		{"returned, in the next call", 0, 3500 * time.Millisecond, false},
		{"returned, idle", 0, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h history
			for i, p := range []int{100, 200, 300, 400} {
				s := snapAt(time.Duration(i)*time.Second, 0, p, 0)
				s.Listeners[0].InCallback, s.Listeners[0].InCallbackSince = source.CallbackUpdate, t0
				h.observe(s)
			}
			// The newest point is this snapshot: it says nothing of the
			// last second, the point before it does.
			now := t0.Add(4 * time.Second)
			s := snapAt(4*time.Second, 0, 417, tc.delivered)
			if tc.since >= 0 {
				s.Listeners[0].InCallback, s.Listeners[0].InCallbackSince = source.CallbackUpdate, t0.Add(tc.since)
			}
			h.observe(s)
			got := assessListener(&s.Listeners[0], now, &h, time.Hour)
			if !got.rising {
				t.Fatalf("the backlog rose at every point: %+v", got)
			}
			if got.stalled != tc.want {
				t.Fatalf("stalled %v, want %v", got.stalled, tc.want)
			}
		})
	}
}
