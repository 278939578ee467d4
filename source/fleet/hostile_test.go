package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// hostileProm answers every query with head, then filler repeated until
// it makes pad bytes (streamed, never held), then tail. written is how
// many bytes it wrote in all before the client stopped reading.
func hostileProm(t *testing.T, head, filler string, pad int64, tail string) (url string, written func() int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		chunk := []byte(strings.Repeat(filler, (64<<10)/len(filler)))
		for left := pad; left > 0; left -= int64(len(chunk)) {
			k, err := w.Write(chunk[:min(left, int64(len(chunk)))])
			n.Add(int64(k))
			if err != nil {
				return // the client stopped reading: the point
			}
		}
		_, _ = io.WriteString(w, tail)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, n.Load
}

// refusedWith runs s until WaitSynced returns and checks it refused the
// first answer for good (ErrUnreachable: --once exits 2) with want, and
// that reading it allocated less than maxAlloc bytes.
func refusedWith(t *testing.T, s *Source, want string, maxAlloc uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	running(t, s)
	err := s.WaitSynced(context.Background())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), want) {
		t.Errorf("WaitSynced: %v; want ErrUnreachable saying %q", err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > maxAlloc {
		t.Errorf("reading the answer allocated %d MiB, want under %d MiB: it was not read within its budget", got>>20, maxAlloc>>20)
	}
}

// An answer larger than its budget is refused while it is read, with a
// sentence, whatever makes it large: blanks between series, or a key the
// fleet does not read.
func TestFleetRefusesAnAnswerOverItsByteBudget(t *testing.T) {
	const head = `{"status":"success","data":{"resultType":"vector","result":[`
	one := `{"metric":{"job":"c","instance":"h:1"},"value":[1,"1"]}`
	for _, c := range []struct {
		name, head, filler, tail string
		maxAlloc                 uint64
	}{
		{"blanks between series", head + one + ",", " ", one + `]}}`, 8 << 20},
		// numbers, each a token of its own: the key is large, no token
		// is; each is garbage once skipped
		{"an unread key", head + one + `]},"padding":[`, "1,", `1]}`, 128 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, written := hostileProm(t, c.head, c.filler, 256<<20, c.tail)
			s := newSource(t, Options{URL: url, MaxAnswerBytes: 1 << 20})
			refusedWith(t, s, "is larger than 1 MiB, the most informtop reads of one answer", c.maxAlloc)
			// What the sockets buffer aside, the rest was never sent.
			if w := written(); w > 64<<20 {
				t.Errorf("the server wrote %d MiB of 256 before the client stopped reading, want at most the 1 MiB budget and what sockets buffer", w>>20)
			}
		})
	}
}

// One series larger than 64 KiB (a label value of a megabyte) is refused
// before the decoder holds it whole.
func TestFleetRefusesASeriesOverItsByteBudget(t *testing.T) {
	url, _ := hostileProm(t, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"`, "x", 8<<20, `"},"value":[1,"1"]}]}}`)
	s := newSource(t, Options{URL: url})
	refusedWith(t, s, "series 1 of the answer to up from Prometheus at "+url+" is larger than 64 KiB", 4<<20)
}

// A Prometheus that ignores the limit it is asked for (before 3.0) and
// answers more series than the cap is refused when the cap is passed,
// not after decoding them all.
func TestFleetRefusesMoreSeriesThanItsCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i := range 50 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"job":"c","instance":"h:%d"},"value":[1,"1"]}`, i)
	}
	b.WriteString(`]}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, b.String())
	}))
	t.Cleanup(srv.Close)
	s := newSource(t, Options{URL: srv.URL, MaxSeries: 10})
	refusedWith(t, s, "the answer to up from Prometheus at "+srv.URL+" holds more than 10 series, the most informtop reads of one query", 4<<20)
}

// A fleet of more targets than MaxProcesses costs the model of
// MaxProcesses of them: the first by name of those up lists are kept
// from the up answer on, the others' series are only counted.
func TestFleetKeepsNoMoreProcessesThanItsCapWhileReading(t *testing.T) {
	b := newBuild(time.Now(), DefaultAgentLabel, DefaultClusterLabel)
	targets := []scrape{}
	for _, i := range []int{4, 2, 0, 3, 1} {
		tg := scrape{"job": "c", "instance": fmt.Sprintf("h:%d", i)}
		targets = append(targets, tg)
		b.addUp(labelsOf(tg, nil), 1)
	}
	b.admit(2)
	for _, tg := range append(targets, scrape{"job": "c", "instance": "federated:9"}) {
		for _, f := range families {
			b.add(f, labelsOf(tg, map[string]string{"__name__": f.metric, "name": "pods", "resource": "pods", "version": "v1", "listener": "l"}), 1)
		}
	}
	if kept := len(b.procs); kept != 2 {
		t.Errorf("the build holds %d targets, want the cap, 2", kept)
	}
	procs, _, total := b.finish(2)
	if total != 6 || len(procs) != 2 || procs[0].Instance != "h:0" || procs[1].Instance != "h:1" || len(procs[0].Informers) != 1 {
		t.Errorf("%d of %d processes, %+v; want h:0 and h:1, with their informer, of 6", len(procs), total, procs)
	}
}
