package demo

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
	for _, s := range d.Snapshots() {
		r := s.Reflector
		states = append(states, fmt.Sprintf("%s at RV %s: %d lists, %d relists, %d watches, open %v, last error %q",
			s.Name, s.LastSyncResourceVersion, r.Lists, r.Relists, r.Watches, r.WatchOpen, r.LastError))
	}
	t.Fatalf("the script did not reach step %q within %v; it ran %q; %s", name, faultedScenarioTimeout, ran, strings.Join(states, "; "))
}
