package replay

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/shared/benchlw"
	"github.com/informtop/informtop/internal/benchrun"
	"github.com/informtop/informtop/recording"
)

// BenchmarkReplayThroughput: a recording of 1,000 listed pods and 20,000
// watch events replayed as fast as possible until every event reached
// the listener, against the live engine on the same stream. ns/event of
// each; read+replay includes reading the file, as informtop replay does.
func BenchmarkReplayThroughput(b *testing.B) {
	const initial, events = 1_000, 20_000
	path := filepath.Join(b.TempDir(), "bench.rec.zst")
	{
		lw := benchlw.New(initial)
		w, err := recording.Create(path, recording.Header{Informers: []recording.Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO",
			Listeners: []recording.Listener{{Name: "count"}}}}})
		if err != nil {
			b.Fatal(err)
		}
		benchrun.Live(b, recording.Tee(lw, "pods", w), lw, initial, events)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	rec, err := recording.Read(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("live", func(b *testing.B) {
		for b.Loop() {
			lw := benchlw.New(initial)
			benchrun.Live(b, lw, lw, initial, events)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	})
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			r, err := rec.Reader()
			if err != nil {
				b.Fatal(err)
			}
			settle(b, r)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	})
	b.Run("read+replay", func(b *testing.B) {
		for b.Loop() {
			r, err := recording.Open(path, recording.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			settle(b, r)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	})
}

// settle replays what r reads as fast as possible until it has settled.
func settle(b *testing.B, r *recording.Reader) {
	s, err := New(r, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	if err := s.Settled(ctx); err != nil {
		b.Fatal(err)
	}
	cancel()
	wg.Wait()
}
