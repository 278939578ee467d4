package recording

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/shared/benchlw"
	"github.com/informtop/informtop/internal/benchrun"
	"github.com/informtop/informtop/internal/benchwire"
)

// BenchmarkRecordingCost: watch events through an engine informer as fast
// as they come until its handler has seen every one, without and with the
// stream recorded to a file, in pairs run back to back (alternating which
// goes first) so that the machine's noise hits both alike. cost-% is how
// much longer the recorded runs took; cpu-ns/event counts the whole
// process, the writer finishing its buffer included.
//
// over-the-wire is what an informer on a cluster does: realistic pods (4
// KB in protobuf, managedFields included) from an HTTP server, decoded by
// client-go's protobuf watch decoder, managedFields stripped by a
// transform. engine-alone hands the engine ready-made tiny pods: no
// decoding, no transform, the engine's own cost only.
func BenchmarkRecordingCost(b *testing.B) {
	b.Run("over-the-wire", func(b *testing.B) {
		const initial, events = 1_000, 20_000
		srv, err := benchwire.New(initial, events)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		recordingPairs(b, initial, events, func(recorded bool) (time.Duration, int64) {
			src, err := srv.ListerWatcher()
			if err != nil {
				b.Fatal(err)
			}
			return timedRun(b, src, recorded, func(src cache.ListerWatcher) { benchrun.Wire(b, src, initial+events) })
		})
	})
	b.Run("engine-alone", func(b *testing.B) {
		const initial, events = 1_000, 20_000
		recordingPairs(b, initial, events, func(recorded bool) (time.Duration, int64) {
			lw := benchlw.New(initial)
			return timedRun(b, lw, recorded, func(src cache.ListerWatcher) { benchrun.Live(b, src, lw, initial, events) })
		})
	})
}

// timedRun runs run over src, recorded to a new file or not, and returns
// how long run took and the file's size.
func timedRun(b *testing.B, src cache.ListerWatcher, recorded bool, run func(cache.ListerWatcher)) (time.Duration, int64) {
	var w *Writer
	if recorded {
		var err error
		w, err = Create(filepath.Join(b.TempDir(), "b.rec.zst"), Header{Informers: []Informer{{Name: "pods"}}})
		if err != nil {
			b.Fatal(err)
		}
		src = Tee(src, "pods", w)
	}
	start := time.Now()
	run(src)
	took := time.Since(start)
	if w == nil {
		return took, 0
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	st := w.Stats()
	if st.Dropped > 0 {
		b.Fatalf("%d records dropped", st.Dropped)
	}
	return took, st.Bytes
}

// recordingPairs runs b.N pairs of run(false) and run(true) after one
// unrecorded warm-up run, and reports per event: each arm's time and CPU,
// the cost in percent overall and of the median pair, and bytes on disk
// per object (list items and events).
func recordingPairs(b *testing.B, initial, events int, run func(recorded bool) (time.Duration, int64)) {
	run(false)
	var off, on, offCPU, onCPU time.Duration
	var bytes int64
	var costs []float64
	arm := func(recorded bool) time.Duration {
		c0 := benchrun.CPUTime(b)
		d, n := run(recorded)
		c := benchrun.CPUTime(b) - c0
		if recorded {
			on, onCPU, bytes = on+d, onCPU+c, bytes+n
		} else {
			off, offCPU = off+d, offCPU+c
		}
		return d
	}
	pairs := 0
	for b.Loop() {
		var a, r time.Duration
		if pairs%2 == 0 {
			a, r = arm(false), arm(true)
		} else {
			r, a = arm(true), arm(false)
		}
		costs = append(costs, (float64(r)/float64(a)-1)*100)
		pairs++
	}
	slices.Sort(costs)
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(pairs*events) }
	b.ReportMetric(per(off), "ns/event-off")
	b.ReportMetric(per(on), "ns/event-recording")
	b.ReportMetric((float64(on)/float64(off)-1)*100, "cost-%")
	b.ReportMetric(costs[len(costs)/2], "cost-%-median-pair")
	b.ReportMetric(per(offCPU), "cpu-ns/event-off")
	b.ReportMetric(per(onCPU), "cpu-ns/event-recording")
	b.ReportMetric(float64(bytes)/float64(pairs*(initial+events)), "bytes/object")
}

// BenchmarkWriterWork: what the writer's goroutine does for each watch
// event whose object came from the wire (a 4 KB pod): cut its
// managedFields, frame it and compress it into the file. It runs beside
// the pipeline, so its cost reaches the pipeline only as CPU and cache
// taken from it.
func BenchmarkWriterWork(b *testing.B) {
	const n = 1000
	wires := make([][]byte, n)
	for i := range wires {
		raw, err := benchwire.Protobuf(benchwire.Pod(i, n+i))
		if err != nil {
			b.Fatal(err)
		}
		wires[i] = raw
	}
	// Not started: the benchmark is the writer's goroutine.
	w, err := create(filepath.Join(b.TempDir(), "w.rec.zst"), Header{Informers: []Informer{{Name: "pods"}}}, DefaultBuffer)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		e := entry{rec: Record{T: int64(i), Kind: KindEvent, Informer: "pods", Type: "MODIFIED"}, wire: wires[i%n]}
		w.write(&e)
		i++
	}
	b.StopTimer()
	go w.loop()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(w.Stats().Bytes)/float64(i), "bytes/event")
}

// BenchmarkRead: reading back the replay benchmark's recording, 1,000
// listed pods and 20,000 watch events, as informtop replay reads it.
// ns/record and the decompressed stream's MB/s.
func BenchmarkRead(b *testing.B) {
	const initial, events = 1_000, 20_000
	path := filepath.Join(b.TempDir(), "r.rec.zst")
	lw := benchlw.New(initial)
	w, err := Create(path, Header{Informers: []Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO"}}})
	if err != nil {
		b.Fatal(err)
	}
	benchrun.Live(b, Tee(lw, "pods", w), lw, initial, events)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	size := decompressedSize(b, path)
	report := func(b *testing.B, records int) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records), "ns/record")
		b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	}
	// whole: Read, every record and its bytes kept, as tools read a file.
	b.Run("whole", func(b *testing.B) {
		records := 0
		for b.Loop() {
			rec, err := Read(path)
			if err != nil {
				b.Fatal(err)
			}
			records += len(rec.Records)
		}
		report(b, records)
	})
	// stream: record by record, as a replay reads a file.
	b.Run("stream", func(b *testing.B) {
		records := 0
		for b.Loop() {
			r, err := Open(path, Limits{})
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				records++
			}
			r.Close()
		}
		report(b, records)
	})
}

// decompressedSize is the size of the recording's zstd stream decompressed.
func decompressedSize(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	defer zr.Close()
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkNeedsRedaction: what deciding from the wire's bytes costs
// the writer per object, before it keeps them: a pod without annotations,
// and a ConfigMap carrying its own 2 KB last-applied copy (the common
// case of an applied object: a whole-object annotation that names a kind
// that is not secret, so no JSON is decoded).
func BenchmarkNeedsRedaction(b *testing.B) {
	applied := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"shop"},"data":{"k":"` + strings.Repeat("v", 2000) + `"}}`
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "shop",
		Annotations: map[string]string{redact.LastApplied: applied, "team": "shop"}}, Data: map[string]string{"k": "v"}}
	for _, c := range []struct {
		name, resource string
		obj            runtime.Object
	}{{"pod", "pods", benchwire.Pod(1, 2)}, {"configmap-applied", "configmaps", cm}} {
		b.Run(c.name, func(b *testing.B) {
			raw, err := benchwire.Protobuf(c.obj)
			if err != nil {
				b.Fatal(err)
			}
			var s wireScratch
			k, body, err := s.envelope(raw[len(protobufMagic):])
			if err != nil {
				b.Fatal(err)
			}
			p := redact.Current()
			for b.Loop() {
				if needed, err := s.needsRedaction(p, c.resource, k, body); needed || err != nil {
					b.Fatal(needed, err)
				}
			}
		})
	}
}
