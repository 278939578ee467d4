package demo

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// claim checks, at the moment a step's note appears, the state the note
// claims; it explains what does not hold.
type claim func(d *Demo) (bool, string)

// noteLog records the steps the script ran, in order, and every note that
// appeared before the state it claims.
type noteLog struct {
	claims map[string]claim

	mu       sync.Mutex
	order    []string
	checked  map[string]bool
	failures []string
}

// watchNotes checks each named step's claim on the script's goroutine right
// after the step shows its note, before the script can move on. Install it
// before Run.
func watchNotes(d *Demo, claims map[string]claim) *noteLog {
	l := &noteLog{claims: claims, checked: map[string]bool{}}
	d.noteHook = func(name string) {
		var failure string
		if c := claims[name]; c != nil {
			if ok, why := c(d); !ok {
				failure = fmt.Sprintf("the note of step %q appeared while %s", name, why)
			}
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.order = append(l.order, name)
		l.checked[name] = true
		if failure != "" {
			l.failures = append(l.failures, failure)
		}
	}
	return l
}

// check fails the test if a note appeared before the state it claims, if
// the script did not run want first and in that order, or if a claimed
// step never ran (an unchecked claim).
func (l *noteLog) check(t *testing.T, want ...string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.failures {
		t.Error(f)
	}
	if len(l.order) < len(want) || !slices.Equal(l.order[:len(want)], want) {
		t.Errorf("the script ran %q, want it to start with %q", l.order, want)
	}
	for name := range l.claims {
		if !l.checked[name] {
			t.Errorf("step %q never showed its note, so its claim was not checked", name)
		}
	}
}

// Claims shared by several scenarios.

func claimSynced(d *Demo) (bool, string) {
	for _, s := range d.States() {
		if !s.Synced {
			return false, s.Name + " has not synced"
		}
	}
	return true, ""
}

func claimPaused(d *Demo) (bool, string) {
	for _, s := range d.States() {
		if !s.Paused {
			return false, s.Name + " is not paused"
		}
	}
	return true, ""
}

// claimQueuesEmpty: processing runs and every queue is empty.
func claimQueuesEmpty(d *Demo) (bool, string) {
	for _, s := range d.States() {
		if s.Paused || s.Queue.Depth != 0 {
			return false, fmt.Sprintf("%s is paused %v with %d rows queued", s.Name, s.Paused, s.Queue.Depth)
		}
	}
	return true, ""
}

// claimCaughtUp: every queue is empty, every listener idle with the same
// deliveries as the others of its informer.
func claimCaughtUp(d *Demo) (bool, string) {
	if ok, why := claimQueuesEmpty(d); !ok {
		return false, why
	}
	for _, s := range d.States() {
		for _, ls := range s.Listeners {
			if ls.Pending != 0 || ls.InCallback != "" {
				return false, fmt.Sprintf("%s/%s still owes %d and is in %q", s.Name, ls.Name, ls.Pending, ls.InCallback)
			}
			if ls.Delivered != s.Listeners[0].Delivered {
				return false, fmt.Sprintf("%s/%s delivered %+v, %s %+v", s.Name, ls.Name, ls.Delivered, s.Listeners[0].Name, s.Listeners[0].Delivered)
			}
		}
	}
	return true, ""
}

// claimBurstQueued returns a pair of claims: the first, for the pause step,
// remembers each queue's count of updates; the second, for the burst step,
// holds once n more updates have been queued by every informer.
func claimBurstQueued(n uint64) (atPause, atBurst claim) {
	var mu sync.Mutex
	base := map[string]uint64{}
	atPause = func(d *Demo) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range d.States() {
			base[s.Name] = s.Queue.Added.Updated
		}
		return claimPaused(d)
	}
	atBurst = func(d *Demo) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range d.States() {
			if got := s.Queue.Added.Updated - base[s.Name]; got < n {
				return false, fmt.Sprintf("%s has queued %d of the burst's %d updates", s.Name, got, n)
			}
		}
		return true, ""
	}
	return atPause, atBurst
}

func claimAll(cs ...claim) claim {
	return func(d *Demo) (bool, string) {
		var whys []string
		for _, c := range cs {
			if ok, why := c(d); !ok {
				whys = append(whys, why)
			}
		}
		return len(whys) == 0, strings.Join(whys, "; ")
	}
}

// await waits until the script has shown the named step's note.
func (l *noteLog) await(t *testing.T, name string) {
	t.Helper()
	waitfor.Seen(t, "the note of step "+name, func() (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.Contains(l.order, name), fmt.Sprintf("steps so far %q", l.order)
	})
}
