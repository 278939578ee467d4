package recording

import (
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/internal/benchlw"
	"github.com/informtop/informtop/internal/benchrun"
)

// BenchmarkRecordingCost: watch events through an engine informer until
// its handler has seen every one, without and with the stream recorded to
// a file. The ratio of the two ns/event is recording's cost.
func BenchmarkRecordingCost(b *testing.B) {
	const initial, events = 1_000, 20_000
	for _, recorded := range []bool{false, true} {
		name := "off"
		if recorded {
			name = "recording"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var bytes int64
			for b.Loop() {
				b.StopTimer()
				lw := benchlw.New(initial)
				var src cache.ListerWatcher = lw
				var w *Writer
				if recorded {
					var err error
					w, err = Create(filepath.Join(b.TempDir(), "b.rec.gz"), Header{Informers: []Informer{{Name: "pods"}}})
					if err != nil {
						b.Fatal(err)
					}
					src = Tee(lw, "pods", w)
				}
				b.StartTimer()
				benchrun.Live(b, src, lw, initial, events)
				b.StopTimer()
				if w != nil {
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
					st := w.Stats()
					if st.Dropped > 0 {
						b.Fatalf("%d records dropped", st.Dropped)
					}
					bytes = st.Bytes
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
			if recorded {
				b.ReportMetric(float64(bytes)/float64(initial+events), "bytes/object")
			}
		})
	}
}
