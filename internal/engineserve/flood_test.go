package engineserve

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
)

// flood is n clients sending requests to a handler in a loop, in
// process, until stopped. Locking: mu guards codes, which each client
// adds its own counts to as it ends.
type flood struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	codes  map[int]int // answers by status
}

// startFlood starts n clients sending req's requests to h and returns
// once they have been answered n times between them, so the flood is in
// full swing; the test's end stops them.
func startFlood(t *testing.T, h http.Handler, n int, req func() *http.Request) *flood {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &flood{cancel: cancel, codes: map[int]int{}}
	t.Cleanup(func() { f.stop() })
	var answered atomic.Int64
	swinging := make(chan struct{})
	for range n {
		f.wg.Go(func() {
			codes := map[int]int{}
			defer func() {
				f.mu.Lock()
				defer f.mu.Unlock()
				for c, k := range codes {
					f.codes[c] += k
				}
			}()
			w := &discardWriter{header: http.Header{}}
			for ctx.Err() == nil {
				clear(w.header)
				h.ServeHTTP(w, req().WithContext(ctx))
				codes[w.status]++
				if answered.Add(1) == int64(n) {
					close(swinging)
				}
			}
		})
	}
	<-swinging
	return f
}

// stop ends the clients and returns their answers by status.
func (f *flood) stop() map[int]int {
	f.cancel()
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.codes)
}

// asks sends n of req's requests to h one after another, as one client
// does, and returns the answers by status and the median time an answer
// took (for the log only: a loaded machine decides it).
func asks(h http.Handler, n int, req func() *http.Request) (map[int]int, time.Duration) {
	codes := map[int]int{}
	took := make([]time.Duration, 0, n)
	for range n {
		rec := httptest.NewRecorder()
		began := time.Now()
		h.ServeHTTP(rec, req())
		took = append(took, time.Since(began))
		codes[rec.Code]++
	}
	slices.Sort(took)
	return codes, took[n/2]
}

// withToken is a GET of path carrying token, if any.
func withToken(path, token string) func() *http.Request {
	return func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
}

// 300 clients without the token, asking as fast as they are answered,
// cannot lock the agent's owner out: they are refused before they spend
// anything of the rate bound, so the owner's frames keep coming, beyond
// the bound's burst too, each of them a 200.
func TestTokenlessFloodCannotLockTheOwnerOut(t *testing.T) {
	h, err := NewHandler(serve.Options{Token: "owner-token"}, syncedPods(t)) // the default bound
	if err != nil {
		t.Fatal(err)
	}
	f := startFlood(t, h, 300, withToken(api.PathFrame, ""))
	const n = 100 // more than the burst, so some wait for their turn
	got, median := asks(h, n, withToken(api.PathFrame, "owner-token"))
	flooded := f.stop()
	t.Logf("the owner's %d frames: %v (median %v); the flood's answers: %v", n, got, median, flooded)
	if got[http.StatusOK] != n {
		t.Errorf("the owner got %d of its %d frames under the flood (answers %v), want every one", got[http.StatusOK], n, got)
	}
	if len(flooded) != 1 || flooded[http.StatusUnauthorized] == 0 {
		t.Errorf("the flood was answered %v, want 401s only", flooded)
	}
}
