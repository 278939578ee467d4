package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// serverHistory records the fake server's whole state after every change,
// by resourceVersion, so a cut can be checked against the state at its
// version.
type serverHistory struct {
	mu     sync.Mutex
	states map[string]map[string]string
}

func (h *serverHistory) record(t *testing.T, src testSource) {
	list, err := src.List(metav1.ListOptions{})
	if err != nil {
		t.Error(err)
		return
	}
	lm, _ := meta.ListAccessor(list)
	items, _ := meta.ExtractList(list)
	state := map[string]string{}
	for _, obj := range items {
		state[keyOf(obj)] = rv(obj)
	}
	h.mu.Lock()
	h.states[lm.GetResourceVersion()] = state
	h.mu.Unlock()
}

// at waits a little for the writer, which records a change only after
// the informer may already have seen it.
func (h *serverHistory) at(rv string) (map[string]string, bool) {
	var s map[string]string
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Second, true, func(context.Context) (bool, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		var ok bool
		s, ok = h.states[rv]
		return ok, nil
	})
	return s, err == nil
}

// TestCutEqualsServerUnderChurn: with either queue, paused and running,
// every cut taken while the server changes equals the server's state at
// the cut's resourceVersion: a healthy informer never looks drifted, even
// with deltas coalesced in a DeltaFIFO or a batch being processed.
func TestCutEqualsServerUnderChurn(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			src := newTestSource(t)
			h := &serverHistory{states: map[string]map[string]string{}}
			for i := range 20 {
				src.Add(pod(fmt.Sprintf("p%d", i)))
			}
			h.record(t, src)
			inf := newTestInformer(src, kind, 0)
			if _, err := inf.AddEventHandler(&recorder{}); err != nil {
				t.Fatal(err)
			}
			if _, err := inf.Cut(); err == nil {
				t.Fatal("a cut before Run succeeded")
			}
			runInformer(t, inf)
			waitfor.True(t, "sync", inf.HasSynced)

			done := make(chan struct{})
			// Every 50 changes the writer waits for a cut, so the number
			// compared is tied to the changes, not to how fast either runs.
			cutNow, cutTaken := make(chan struct{}), make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() { // the server changes; a single writer keeps the history exact
				defer close(done)
				r := rand.New(rand.NewPCG(1, 2))
				for i := range 600 {
					p := pod(fmt.Sprintf("p%d", r.IntN(30)))
					switch r.IntN(3) {
					case 0:
						src.Add(p)
					case 1:
						src.Modify(p)
					default:
						src.Delete(p)
					}
					h.record(t, src)
					if i%50 == 25 {
						cutNow <- struct{}{}
						<-cutTaken
					}
					if i%100 == 50 {
						inf.SetPaused(true) // let deltas pile up and coalesce
					}
					if i%100 == 99 {
						inf.SetPaused(false)
					}
				}
				inf.SetPaused(false)
			})
			cuts := 0
			check := func() {
				c, err := inf.Cut()
				if errors.Is(err, ErrNothingReceived) {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want, ok := h.at(c.ResourceVersion)
				if !ok {
					t.Fatalf("cut at RV %s, a version the server never had", c.ResourceVersion)
				}
				if !maps.Equal(c.Objects, want) {
					t.Fatalf("cut at RV %s:\n got %v\nwant %v", c.ResourceVersion, c.Objects, want)
				}
				cuts++
			}
		loop:
			for {
				select {
				case <-done:
					break loop
				case <-cutNow:
					check()
					cutTaken <- struct{}{}
				default:
					check()
					time.Sleep(time.Millisecond)
				}
			}
			wg.Wait()
			check()
			if cuts < 10 {
				t.Fatalf("only %d cuts compared", cuts)
			}
		})
	}
}
