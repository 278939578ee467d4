package demo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// faultedScenarioTimeout bounds the wait for the end of a scenario that
// makes client-go back off several times: its backoff doubles with every
// fault (0.8s, 1.6s, 3.2s… with jitter up to twice that) and does not reset
// within a test.
const faultedScenarioTimeout = 2 * testTimeout

// awaitStep waits until the script is held at the named step; when it is
// not, it fails naming the steps that ran and where each reflector stands.
func awaitStep(t *testing.T, d *Demo, g *gate, notes *noteLog, name string) {
	t.Helper()
	select {
	case <-g.reached[name]:
		return
	case <-time.After(faultedScenarioTimeout):
	}
	notes.mu.Lock()
	ran := append([]string(nil), notes.order...)
	notes.mu.Unlock()
	var states []string
	for _, s := range d.States() {
		r := s.Reflector
		states = append(states, fmt.Sprintf("%s at RV %s: %d lists, %d relists, %d watches, open %v, last error %q",
			s.Name, s.LastSyncResourceVersion, r.Lists, r.Relists, r.Watches, r.WatchOpen, r.LastError))
	}
	t.Fatalf("the script did not reach step %q within %v; it ran %q; %s", name, faultedScenarioTimeout, ran, strings.Join(states, "; "))
}

// informerEvents are the informer's events the Events view (5) still
// holds, oldest first.
func informerEvents(d *Demo, informer string) []source.Event {
	evs, _, _ := d.Events().Since(0, 0)
	all := source.EventsOf(evs)
	var out []source.Event
	for _, ev := range all {
		if ev.Informer == informer {
			out = append(out, ev)
		}
	}
	return out
}

// claimGoneThenRelisted: the informer's watch stream got a 410 Gone, and
// its relist came after it.
func claimGoneThenRelisted(informer string) claim {
	return func(d *Demo) (bool, string) {
		gone := false
		for _, ev := range informerEvents(d, informer) {
			switch {
			case ev.Type == source.EventWatchError && strings.Contains(ev.Detail, "410"):
				gone = true
			case ev.Type == source.EventRelist && gone:
				return true, ""
			}
		}
		if gone {
			return false, informer + " got a 410 but has not relisted since"
		}
		return false, informer + " got no 410 before relisting"
	}
}

// claimRewatchedFromLastBookmark: the informer's newest watch asked for the
// resourceVersion of the last bookmark its reflector took before it.
func claimRewatchedFromLastBookmark(informer string) claim {
	return func(d *Demo) (bool, string) {
		var bookmark, before, from string
		for _, ev := range informerEvents(d, informer) {
			switch ev.Type {
			case source.EventBookmark:
				bookmark = ev.Detail
			case source.EventWatchOpen:
				before, from = bookmark, ev.Detail
			}
		}
		return from != "" && from == before, fmt.Sprintf("%s re-watched from RV %q, its last bookmark before was at RV %q", informer, from, before)
	}
}
